package bench

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/internal/kernel"
)

// gpuGroups is the number of distinct keys of the gpu suite, as id4 has.
const gpuGroups = 100

// gpuSuite sums n float64s grouped by n int64 keys of 100 values: on the
// GPU, with the copies to and from it reported apart from the kernels, and
// with Dusk's CPU kernels (GroupRows and Partial, as a partial aggregation
// runs them) on every core. Both answers' sums must agree.
func (r *runner) gpuSuite(n int) error {
	dev, err := gpu.Default()
	if err != nil {
		return fmt.Errorf("gpu suite: %w", err)
	}
	fmt.Fprintf(r.out, "%-13s  %s, %d MiB\n", "device", dev.Name(), dev.Memory()>>20)
	rng := rand.New(rand.NewPCG(42, 1))
	keys, vals := make([]int64, n), make([]float64, n)
	for i := range keys {
		keys[i], vals[i] = 1+rng.Int64N(gpuGroups), float64(rng.IntN(100_000_000))/1e6
	}
	bytes := float64(n) * 16
	for run := 1; run <= 2; run++ {
		r.step("cpu", run)
		start := time.Now()
		cpuSums := cpuGroupSum(keys, vals)
		secs := time.Since(start).Seconds()
		r.report(Result{Question: "cpu", Run: run, Seconds: secs, Rows: int64(len(cpuSums)), Checksum: []float64{total(cpuSums)}, BytesPerSec: bytes / secs})

		r.step("gpu", run)
		before := dev.Stats()
		start = time.Now()
		res, err := dev.GroupBy(gpu.GroupBy{Keys: keys, Cols: []gpu.AggColumn{{F64: vals, Sum: true}}})
		secs = time.Since(start).Seconds()
		if err != nil {
			return fmt.Errorf("gpu run %d: %w", run, err)
		}
		st := dev.Stats()
		gpuSums := map[int64]float64{}
		for i, k := range res.Keys {
			gpuSums[k] = res.Cols[0].SumF[i]
		}
		if g, c := total(gpuSums), total(cpuSums); math.Abs(g-c) > 1e-9*math.Abs(c) || len(gpuSums) != len(cpuSums) {
			return fmt.Errorf("gpu run %d: %d groups summing to %v; the CPU's %d groups sum to %v", run, len(gpuSums), total(gpuSums), len(cpuSums), total(cpuSums))
		}
		r.report(Result{Question: "gpu", Run: run, Seconds: secs, Rows: int64(len(gpuSums)), Checksum: []float64{total(gpuSums)}, BytesPerSec: bytes / secs})
		moved := float64(st.BytesIn - before.BytesIn + st.BytesOut - before.BytesOut)
		transfer := (st.Transfer - before.Transfer).Seconds()
		r.report(Result{Question: "gpu-transfer", Run: run, Seconds: transfer, BytesPerSec: moved / transfer})
		r.report(Result{Question: "gpu-kernels", Run: run, Seconds: (st.Compute - before.Compute).Seconds()})
	}
	return nil
}

// cpuGroupSum sums vals by key with Dusk's CPU kernels, a slice of the
// rows per core, and merges the slices' sums.
func cpuGroupSum(keys []int64, vals []float64) map[int64]float64 {
	parts := runtime.GOMAXPROCS(0)
	sums := make([]map[int64]float64, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := len(keys)*p/parts, len(keys)*(p+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, v := kernel.NewInt64(keys[lo:hi], nil), kernel.NewFloat64(vals[lo:hi], nil)
			defer k.Release()
			defer v.Release()
			ids, firsts := kernel.GroupRows([]arrow.Array{k}, nil)
			st, _ := kernel.Partial(kernel.Sum, []arrow.Array{v}, ids, len(firsts)) // float sums do not overflow
			s := st[0].(*array.Float64).Float64Values()
			sums[p] = make(map[int64]float64, len(firsts))
			for g, row := range firsts {
				sums[p][keys[lo+int(row)]] = s[g]
			}
			st[0].Release()
		}()
	}
	wg.Wait()
	out := map[int64]float64{}
	for _, m := range sums {
		for k, s := range m {
			out[k] += s
		}
	}
	return out
}

// total adds a map's values in key order, so that two maps with the same
// sums give the same total.
func total(m map[int64]float64) float64 {
	var t float64
	for _, k := range slices.Sorted(maps.Keys(m)) {
		t += m[k]
	}
	return t
}
