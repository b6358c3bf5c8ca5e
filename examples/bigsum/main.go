// Bigsum sums an n × n matrix of uniform random float64s (by default
// 80,000 × 80,000: 51.2 GB, more than this machine's memory) on a local
// cluster in this process. Each chunk is generated and summed block by block
// in one task and only its sum is kept, so memory stays small; it prints the
// sum, the time, the speed and the process's peak resident memory.
//
// Must never import directly: scheduler, worker, or internal: an example uses
// the public API alone.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/array"
)

func main() {
	n := flag.Int("n", 80000, "rows and columns of the matrix")
	chunk := flag.Int("chunk", 4000, "rows and columns of a chunk (4000: 128 MB if it were stored)")
	seed := flag.Uint64("seed", 42, "random seed")
	workers := flag.Int("workers", runtime.NumCPU(), "workers of the local cluster, one thread each")
	slices := flag.Int("slices", 1, "sum this many row slices and add their sums, as Metaflow's BigSum does with parallel_map")
	flag.Parse()

	ctx := context.Background()
	// Progress by task kind on stderr while the sum runs.
	client, err := dusk.NewClient(ctx, dusk.Workers(*workers), dusk.Progress(os.Stderr))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	x := array.Random(*seed, []int{*n, *n}, []int{*chunk, *chunk})
	start := time.Now()
	// A slice of the random matrix is generated, never cut from it whole.
	total := x.Sum()
	if *slices > 1 {
		step := (*n + *slices - 1) / *slices
		total = nil
		for lo := 0; lo < *n; lo += step {
			s := x.Slice([]int{lo}, []int{lo + step}).Sum()
			if total == nil {
				total = s
			} else {
				total = total.Add(s)
			}
		}
	}
	out, err := total.Compute(ctx)
	if err != nil {
		log.Fatal(err)
	}
	took := time.Since(start)
	elems := float64(*n) * float64(*n)
	fmt.Printf("sum of %d × %d uniform [0,1) float64s (%.1f GB) in %d chunks: %.6f (expected about %.0f)\n",
		*n, *n, elems*8/1e9, x.NumChunks(), out.Float(0), elems/2)
	fmt.Printf("time %v, %.3g elements/s, %.3g elements/s per worker\n",
		took.Round(time.Millisecond), elems/took.Seconds(), elems/took.Seconds()/float64(*workers))
	fmt.Printf("peak RSS %s\n", peakRSS())
}

// peakRSS reads the process's peak resident memory (VmHWM) on Linux.
func peakRSS() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
