// Command dusk runs the processes of a Dusk cluster: a scheduler, and
// workers that join it; and `dusk bench`, the benchmark suite. See `dusk -h`.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/bench"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "bench" {
		if err := bench.Main(context.Background(), os.Args[2:], os.Stdout, os.Stderr, connect); err != nil {
			fmt.Fprintln(os.Stderr, "dusk bench:", err)
			os.Exit(1)
		}
		return
	}
	dusk.Main()
}

// connect is the bench.Connect of `dusk bench`: a client of the scheduler
// at scheduler, or of a local cluster of workers workers.
func connect(ctx context.Context, workers int, scheduler string) (context.Context, func(), error) {
	opts := []dusk.Option{dusk.Workers(workers)}
	if scheduler != "" {
		opts = append(opts, dusk.Address(scheduler))
	}
	c, err := dusk.NewClient(ctx, opts...)
	if err != nil {
		return nil, nil, err
	}
	return dusk.WithClient(ctx, c), func() { c.Close() }, nil
}
