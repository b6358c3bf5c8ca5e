// Command dusk runs the processes of a Dusk cluster: a scheduler, and
// workers that join it; `dusk sql`, a SQL shell; and `dusk bench`, the
// benchmark suite. See `dusk -h`.
//
// Must never import: examples, cmd/dusktest, collections/testcluster or
// internal/s3test: the command ships no test helper.
package main

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/bench"
	"github.com/duskdata/dusk/cmd/daemon"
	"github.com/duskdata/dusk/internal/gctune"
	"github.com/duskdata/dusk/internal/progress"
)

func main() {
	daemon.AddCommand(daemon.Command{Name: "bench", Synopsis: "SUITE [--rows 1e7] [--data DIR] ...",
		About: "the benchmarks: " + strings.Join(bench.Suites(), ", ") + " (dusk bench -h)", Run: runBench})
	daemon.AddCommand(daemon.Command{Name: "sql", Synopsis: "[--table NAME=PATH] [-c QUERY | -f FILE] [--format table|csv|json|parquet]",
		About: "run SQL on the local cluster or the scheduler's: a shell, or the statements given", Run: runSQL})
	dusk.Main()
}

// runBench runs `dusk bench`. Interrupted, the suite stops and its local
// cluster closes, taking its workers' spill directories with it.
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	gctune.Tune(gctune.DataGC) // the benchmark's process is Dusk's own, as a worker's is
	return bench.Main(ctx, args, stdout, stderr, connect)
}

// connect is the bench.Connect of `dusk bench`: a client of the scheduler
// at c.Scheduler, or of a local cluster of c.Workers workers.
func connect(ctx context.Context, cl bench.Cluster) (*bench.Session, error) {
	opts := []dusk.Option{dusk.Workers(cl.Workers)}
	if cl.Scheduler != "" {
		opts = append(opts, dusk.Address(cl.Scheduler))
	}
	if cl.TLS.Enabled() {
		opts = append(opts, dusk.TLS(cl.TLS.CA, cl.TLS.Cert, cl.TLS.Key))
	}
	if cl.MemoryLimit > 0 {
		opts = append(opts, dusk.MemoryLimit(cl.MemoryLimit))
	}
	if cl.Target > 0 {
		opts = append(opts, dusk.MemoryFractions(dusk.Fractions{Target: cl.Target}))
	}
	if progress.IsTerminal(os.Stderr) {
		// Bars by task kind while a question runs; logs stay clean.
		opts = append(opts, dusk.Progress(os.Stderr))
	}
	c, err := dusk.NewClient(ctx, opts...)
	if err != nil {
		return nil, err
	}
	spilled := func(ctx context.Context) (out, in int64, err error) {
		out, in, _, err = c.SpillTotals(ctx)
		return out, in, err
	}
	return &bench.Session{Ctx: dusk.WithClient(ctx, c), Close: func() { c.Close() }, Spilled: spilled,
		SpilledNow: cl.Scheduler == "", SchedulerMemory: c.SchedulerMemory}, nil
}
