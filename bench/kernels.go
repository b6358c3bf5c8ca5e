package bench

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"time"

	"github.com/duskdata/dusk/internal/kernel/kernelbench"
)

// kernelsUsage is `dusk bench kernels -h`.
const kernelsUsage = `usage: dusk bench kernels [--kernels REGEXP] [--json FILE]

  kernels  each kernel of the table (grouped aggregations by 1, 4, 1k and 1M
           groups, comparisons, filters by a mask and by a selection vector,
           arithmetic, hashes, gathers, dictionary decoding, bit-unpacking,
           snappy, zstd and lz4) over a million values, in ns a value, GB/s
           and times the floor: a copy of the same bytes on this machine.
           No cluster; the same table as go test -bench Kernels ./internal/kernel/
`

// runKernels is `dusk bench kernels`: the kernel table timed on this
// machine, each case beside the copy floor (the table's first case).
func runKernels(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dusk bench kernels", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, kernelsUsage) }
	only := fs.String("kernels", "", "a regular expression: the kernels whose names it matches (the floor is always timed)")
	jsonPath := fs.String("json", "", "write one JSON line a kernel to FILE")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	match, err := regexp.Compile(*only)
	if err != nil {
		return fmt.Errorf("--kernels: %w", err)
	}
	var enc *json.Encoder
	if *jsonPath != "" {
		f, err := os.Create(*jsonPath)
		if err != nil {
			return err
		}
		defer f.Close()
		enc = json.NewEncoder(f)
	}
	m := machine()
	fmt.Fprintf(stdout, "machine: %s\n", m)
	const format = "%-36s  %9s  %8s  %8s\n"
	fmt.Fprintf(stdout, format, "kernel", "ns/value", "GB/s", "x copy")
	var floor float64 // the copy's seconds a byte
	for _, c := range kernelbench.Cases() {
		if c.Name != kernelbench.Floor && !match.MatchString(c.Name) {
			continue
		}
		per, err := timeRun(c.Setup())
		if err != nil {
			return fmt.Errorf("kernel %s: %w", c.Name, err)
		}
		secs := per.Seconds()
		if c.Name == kernelbench.Floor {
			floor = secs / float64(c.Bytes)
		}
		fmt.Fprintf(stdout, format, c.Name, fmt.Sprintf("%.2f", secs*1e9/kernelbench.Rows),
			fmt.Sprintf("%.2f", float64(c.Bytes)/secs/1e9), fmt.Sprintf("%.1f", secs/float64(c.Bytes)/floor))
		if enc != nil {
			res := Result{Suite: "kernels", Question: c.Name, Run: 1, Seconds: secs, Rows: kernelbench.Rows,
				BytesPerSec: float64(c.Bytes) / secs, Checksum: []float64{}, Machine: m}
			if err := enc.Encode(res); err != nil {
				return err
			}
		}
	}
	return nil
}

// timeRun is run's best time of three batches of at least 100 ms each,
// after one run to warm the caches.
func timeRun(run func() error) (time.Duration, error) {
	if err := run(); err != nil {
		return 0, err
	}
	best := time.Duration(1<<63 - 1)
	for range 3 {
		n, start := 0, time.Now()
		for n == 0 || time.Since(start) < 100*time.Millisecond {
			if err := run(); err != nil {
				return 0, err
			}
			n++
		}
		best = min(best, time.Since(start)/time.Duration(n))
	}
	return best, nil
}
