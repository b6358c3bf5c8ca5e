package bench

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	darray "github.com/duskdata/dusk/array"
	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/io/parquet"
	"github.com/duskdata/dusk/io/storage"
)

// The tasks suite's operations: a task that returns 1, and one that adds
// its inputs up.
const (
	opOne = "bench.one"
	opAdd = "bench.add"
)

func init() {
	registry.Register(opOne, func(*registry.Context, []byte, []any) (any, error) { return int64(1), nil })
	registry.Register(opAdd, func(_ *registry.Context, _ []byte, inputs []any) (any, error) {
		var sum int64
		for i, in := range inputs {
			switch v := in.(type) {
			case int64:
				sum += v
			case float64: // a value that came through JSON from another process
				sum += int64(v)
			default:
				return nil, fmt.Errorf("%s: input %d is a %T, not a count", opAdd, i, in)
			}
		}
		return sum, nil
	})
}

// tasks runs n trivial tasks, then adds their results up through a tree of
// fan-in 32, twice: tasks per second of the whole, and the wall time per
// task, are what scheduling one costs the cluster.
func (r *runner) tasks(n int) error {
	ex, err := collections.ExecutorFrom(r.ctx)
	if err != nil {
		return err
	}
	// The scheduler's memory before the first run (its program and an idle
	// heap): what the tasks add to it is their cost.
	var idle int64
	if r.sess.SchedulerMemory != nil {
		idle, _, _ = r.sess.SchedulerMemory(r.ctx)
	}
	for run := 1; run <= 2; run++ {
		// Keys differ between runs and processes, so no run finds another's results.
		nonce := make([]byte, 16)
		binary.LittleEndian.PutUint64(nonce, uint64(time.Now().UnixNano()))
		binary.LittleEndian.PutUint64(nonce[8:], uint64(run))
		g := graph.New()
		level := make([]graph.Key, n)
		for i := range level {
			level[i] = graph.Key(graph.Name("bench-one", opOne, nonce, strconv.Itoa(i)))
			g.Add(&graph.Task{Key: level[i], Op: opOne, Args: nonce})
		}
		total := n
		for len(level) > 1 {
			var next []graph.Key
			for i := 0; i < len(level); i += 32 {
				in := level[i:min(i+32, len(level))]
				k := graph.Key(graph.Name("bench-add", opAdd, nonce, string(in[0]), strconv.Itoa(len(in))))
				g.Add(&graph.Task{Key: k, Op: opAdd, Inputs: in})
				next = append(next, k)
				total++
			}
			level = next
		}
		r.step("tasks", run)
		resetPeakRSS()
		start := time.Now()
		vals, err := ex.Compute(r.ctx, g, level)
		secs := time.Since(start).Seconds()
		if err != nil {
			return fmt.Errorf("tasks run %d: %w", run, err)
		}
		got, _ := vals[0].(int64)
		if f, ok := vals[0].(float64); ok {
			got = int64(f)
		}
		if got != int64(n) {
			return fmt.Errorf("tasks run %d: the tasks add up to %v, not %d", run, vals[0], n)
		}
		res := Result{Question: "tasks", Run: run, Seconds: secs, Rows: int64(total), Checksum: []float64{float64(got)},
			PeakRSSBytes: peakRSS(), TasksPerSec: float64(total) / secs}
		if r.sess.SchedulerMemory != nil {
			if _, peak, err := r.sess.SchedulerMemory(r.ctx); err == nil {
				res.SchedulerPeakRSSBytes = peak
			}
		}
		r.report(res)
		fmt.Fprintf(r.out, "%-13s  %3d  %9.1f µs a task, wall time\n", "overhead", run, secs/float64(total)*1e6)
		if p := res.SchedulerPeakRSSBytes; p > 0 {
			fmt.Fprintf(r.out, "%-13s  %3d  %.2f GB at its peak (%.0f MB idle before the first run), %.0f bytes a task above idle\n",
				"scheduler", run, float64(p)/1e9, float64(idle)/1e6, float64(p-idle)/float64(total))
		}
	}
	return nil
}

// recordBytes is the memory of recs' buffers.
func recordBytes(recs []arrow.Record) int64 {
	var total int64
	var add func(d arrow.ArrayData)
	add = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				total += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			add(c)
		}
		if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
			add(dict)
		}
	}
	for _, rec := range recs {
		for _, c := range rec.Columns() {
			add(c.Data())
		}
	}
	return total
}

// shuffle moves the groupby table of n rows (read from its CSV file in dir,
// in partitions parts when above 0) so that equal id6 share a partition,
// then sorts it by v3 (a range shuffle, its order checked), each twice:
// GB/s of the table's memory.
func (r *runner) shuffle(data dataset, n, partitions int) error {
	x, err := r.loadGroupBy(data, n, partitions)
	if err != nil {
		return err
	}
	defer x.Release()
	tb, err := x.Compute(r.ctx)
	if err != nil {
		return err
	}
	bytes := recordBytes([]arrow.Record{tb.Record()})
	tb.Release()
	parts := x.NumPartitions()
	if err := r.question("shuffle", bytes, func() (*dataframe.Frame, error) { return x.Shuffle(parts, "id6"), nil }); err != nil {
		return err
	}
	sorted := func() (*dataframe.Frame, error) { return x.SortValues([]string{"v3"}).Select("v3", "v1", "v2"), nil }
	return r.checkedQuestion("sort", bytes, sorted, func(p *dataframe.Frame) error { return CheckOrder(r.ctx, p) })
}

// spill persists n×8 random float64s, in partitions chunks of rows (8 by
// default), through workers whose memory limit makes them write much of it
// to disk, then sums it, reading it back; twice. The rates are of the
// data's bytes; a line after each run says how much of it the workers
// moved to disk and back, by their own counts.
func (r *runner) spill(n, partitions int) error {
	if r.sess.Spilled == nil {
		return errors.New("this cluster does not report what it spills")
	}
	if partitions < 1 {
		partitions = 8
	}
	bytes := float64(n) * 64
	for run := 1; run <= 2; run++ {
		out0, in0, err := r.settle()
		if err != nil {
			return err
		}
		a := darray.Random(uint64(run), []int{n, 8}, []int{(n + partitions - 1) / partitions, 8})
		r.step("write", run)
		resetPeakRSS()
		start := time.Now()
		p, err := a.Persist(r.ctx)
		if err != nil {
			return fmt.Errorf("write run %d: %w", run, err)
		}
		secs := time.Since(start).Seconds()
		r.report(Result{Question: "write", Run: run, Seconds: secs, Rows: int64(n) * 8, PeakRSSBytes: peakRSS(), BytesPerSec: bytes / secs})
		out1, _, err := r.settle()
		if err != nil {
			p.Release()
			return err
		}

		r.step("read", run)
		resetPeakRSS()
		start = time.Now()
		sum, err := p.Sum().Compute(r.ctx)
		secs = time.Since(start).Seconds()
		p.Release()
		if err != nil {
			return fmt.Errorf("read run %d: %w", run, err)
		}
		r.report(Result{Question: "read", Run: run, Seconds: secs, Rows: int64(n) * 8, Checksum: []float64{sum.Float(0)},
			PeakRSSBytes: peakRSS(), BytesPerSec: bytes / secs})
		_, in1, err := r.settle()
		if err != nil {
			return err
		}
		fmt.Fprintf(r.out, "%-13s  %3d  %.0f MB of %.0f MB written to disk, %.0f MB read back\n", "spilled", run,
			float64(out1-out0)/1e6, bytes/1e6, float64(in1-in0)/1e6)
	}
	return nil
}

// settle returns the workers' counts of spilled bytes: as they are, where
// the session reads them so; else once their reports, which come every
// second, stop changing.
func (r *runner) settle() (out, in int64, err error) {
	if r.sess.SpilledNow {
		return r.sess.Spilled(r.ctx)
	}
	lastOut, lastIn := int64(-1), int64(-1)
	for {
		out, in, err := r.sess.Spilled(r.ctx)
		if err != nil || out == lastOut && in == lastIn {
			return out, in, err
		}
		lastOut, lastIn = out, in
		time.Sleep(1100 * time.Millisecond)
	}
}

// filesSize is the bytes of the files pattern matches.
func filesSize(pattern string) (int64, error) {
	files, err := storage.List(pattern)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, f := range files {
		total += f.Size
	}
	return total, nil
}

// io reads the groupby table's CSV file into the workers' memory, writes it
// as CSV and as Parquet under dir/io, and reads the Parquet back, twice
// each: MB/s of the files.
func (r *runner) io(data dataset, n, partitions int) error {
	path, err := data.groupBy(n)
	if err != nil {
		return err
	}
	var opts dataframe.CSVOptions
	if st, err := os.Stat(path); err == nil && partitions > 0 {
		opts.BlockSize = st.Size()/int64(partitions) + 1
	}
	out := filepath.Join(data.dir, "io")
	csvOut, pqOut := filepath.Join(out, "csv"), filepath.Join(out, "parquet")
	var loaded *dataframe.Frame
	defer func() {
		if loaded != nil {
			loaded.Release()
		}
	}()
	steps := []struct {
		name  string
		files string
		run   func() error
	}{
		{"csv-read", path, func() error {
			p, err := dataframe.ReadCSV(path, opts).Persist(r.ctx)
			if loaded != nil {
				loaded.Release()
			}
			loaded = p
			return err
		}},
		{"csv-write", csvOut, func() error {
			_, err := loaded.ToCSV(r.ctx, csvOut, dataframe.CSVWriteOptions{Overwrite: true})
			return err
		}},
		{"parquet-write", pqOut, func() error {
			_, err := loaded.ToParquet(r.ctx, pqOut, dataframe.ParquetWriteOptions{Overwrite: true})
			return err
		}},
		{"parquet-read", pqOut, func() error {
			p, err := dataframe.ReadParquet(pqOut).Persist(r.ctx)
			if err == nil {
				p.Release()
			}
			return err
		}},
	}
	for _, s := range steps {
		for run := 1; run <= 2; run++ {
			r.step(s.name, run)
			resetPeakRSS()
			start := time.Now()
			if err := s.run(); err != nil {
				return fmt.Errorf("%s run %d: %w", s.name, run, err)
			}
			secs := time.Since(start).Seconds()
			size, err := filesSize(s.files)
			if err != nil {
				return err
			}
			r.report(Result{Question: s.name, Run: run, Seconds: secs, Rows: int64(n), PeakRSSBytes: peakRSS(), BytesPerSec: float64(size) / secs})
		}
	}
	return os.RemoveAll(out)
}

// bigsum sums a square matrix of about 160·n uniform float64s in chunks of
// 4000×4000, each made and summed in one task, so that memory stays small
// whatever its size; twice.
func (r *runner) bigsum(n int) error {
	side := int(math.Sqrt(160 * float64(n)))
	elems := float64(side) * float64(side)
	for run := 1; run <= 2; run++ {
		r.step("sum", run)
		resetPeakRSS()
		start := time.Now()
		out, err := darray.Random(42, []int{side, side}, []int{4000, 4000}).Sum().Compute(r.ctx)
		secs := time.Since(start).Seconds()
		if err != nil {
			return fmt.Errorf("sum run %d: %w", run, err)
		}
		r.report(Result{Question: "sum", Run: run, Seconds: secs, Rows: int64(elems), Checksum: []float64{out.Float(0)},
			PeakRSSBytes: peakRSS(), BytesPerSec: elems * 8 / secs})
	}
	// Metaflow's BigSum as its users write it: a sum per slice of 8 row
	// slices (parallel_map over the slices), then the sum of those; each
	// slice of the random matrix is generated, never cut from it.
	for run := 1; run <= 2; run++ {
		r.step("sum-slices", run)
		resetPeakRSS()
		start := time.Now()
		x := darray.Random(42, []int{side, side}, []int{4000, 4000})
		step := (side + 7) / 8
		var total *darray.Array
		for lo := 0; lo < side; lo += step {
			s := x.Slice([]int{lo}, []int{lo + step}).Sum()
			if total == nil {
				total = s
			} else {
				total = total.Add(s)
			}
		}
		out, err := total.Compute(r.ctx)
		secs := time.Since(start).Seconds()
		if err != nil {
			return fmt.Errorf("sum of slices run %d: %w", run, err)
		}
		r.report(Result{Question: "sum-slices", Run: run, Seconds: secs, Rows: int64(elems), Checksum: []float64{out.Float(0)},
			PeakRSSBytes: peakRSS(), BytesPerSec: elems * 8 / secs})
	}
	fmt.Fprintf(r.out, "%-13s  %.0f × %.0f float64s (%.1f GB were they stored)\n", "matrix", float64(side), float64(side), elems*8/1e9)
	return nil
}

// writeParquet writes recs as one Parquet file at path, atomically.
func writeParquet(path string, recs []arrow.Record) error {
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	return storage.WriteFile(path, true, func(w io.Writer) error {
		return parquet.Write(w, recs[0].Schema(), recs, parquet.WriteOptions{})
	})
}
