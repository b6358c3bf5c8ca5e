package daemon_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/array"
	"github.com/duskdata/dusk/bag"
	"github.com/duskdata/dusk/bench"
)

// Registered here for the client; the dusktest binary registers the same
// functions, and the element types' operations, for its workers.
var (
	manyClicks = bag.Register("test-many-clicks", func(r map[string]any) bool {
		n, _ := r["num_clicks"].(float64)
		return n > 2
	})
	clickArea = bag.Register("test-click-area", func(r map[string]any) string {
		s, _ := r["area"].(string)
		return s
	})
	rowBigV1 = bag.Register("test-row-big-v1", func(r bench.GroupByRow) bool { return r.V1 > 2 })
	rowV3    = bag.Register("test-row-v3", func(r bench.GroupByRow) float64 { return r.V3 })
	// Registered in this test binary only: no worker's binary has it.
	nobodyHas = bag.Register("test-nobody-has", func(r map[string]any) bool { return true })
	v1ByID1   = bag.RegisterFold("test-v1-by-id1",
		func(r bench.GroupByRow) string { return r.ID1 },
		func(acc int64, r bench.GroupByRow) int64 { return acc + r.V1 },
		func(a, b int64) int64 { return a + b })
)

// Bags and arrays on worker processes of another binary: every partition,
// partial and chunk crosses processes encoded, and every operation runs
// from the workers' registrations. Each result is checked against plain Go.
func TestCollectionsAcrossProcesses(t *testing.T) {
	sched, _ := startCluster(t, bins.dusktest, 3)
	ctx := connect(t, testCtx(t), sched.addr)

	t.Run("clicks", func(t *testing.T) {
		// Numbers are float64, as they come back from JSON.
		areas := []string{"north", "south", "east", "west"}
		clicks := make([]map[string]any, 1000)
		for i := range clicks {
			clicks[i] = map[string]any{"id": float64(i), "area": areas[(i*7)%4], "num_clicks": float64((i * 5) % 6),
				"info": map[string]any{"a_field": fmt.Sprint("x", i%3)}}
		}
		var many []map[string]any
		freq := map[any]int64{}
		groups := map[string][]float64{}
		for _, r := range clicks {
			if r["num_clicks"].(float64) > 2 {
				many = append(many, r)
			}
			freq[r["area"]]++
			a := r["area"].(string)
			groups[a] = append(groups[a], r["id"].(float64))
		}
		b := bag.FromSequence(clicks, 7)

		if n, err := b.Count().Compute(ctx); err != nil || n != int64(len(clicks)) {
			t.Fatalf("Count = %d, %v; want %d", n, err, len(clicks))
		}
		if n, err := bag.Filter(b, manyClicks).Count().Compute(ctx); err != nil || n != int64(len(many)) {
			t.Fatalf("Filter.Count = %d, %v; want %d", n, err, len(many))
		}
		got, err := bag.Filter(b, manyClicks).Take(ctx, 5)
		if err != nil || !reflect.DeepEqual(got, many[:5]) {
			t.Fatalf("Filter.Take(5) = %v, %v; want %v", got, err, many[:5])
		}
		// 300 items span three partitions: Take computes them in two rounds.
		got, err = b.Take(ctx, 300)
		if err != nil || !reflect.DeepEqual(got, clicks[:300]) {
			t.Fatalf("Take(300): %d items, %v; want the first 300", len(got), err)
		}

		pairs, err := bag.Frequencies(bag.Pluck(b, "area")).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		gotFreq := map[any]int64{}
		for _, p := range pairs {
			gotFreq[p.Key] = p.Value
		}
		if !reflect.DeepEqual(gotFreq, freq) {
			t.Fatalf("Frequencies(Pluck area) = %v; want %v", gotFreq, freq)
		}

		grouped, err := bag.GroupBy(b, clickArea, 3).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(grouped) != len(groups) {
			t.Fatalf("GroupBy: %d groups, want %d", len(grouped), len(groups))
		}
		for _, g := range grouped {
			ids := make([]float64, len(g.Value))
			for i, r := range g.Value {
				if r["area"] != g.Key {
					t.Fatalf("GroupBy: group %q holds %v", g.Key, r)
				}
				ids[i] = r["id"].(float64)
			}
			if !reflect.DeepEqual(ids, groups[g.Key]) {
				t.Fatalf("GroupBy: group %q has ids %v; want %v", g.Key, ids, groups[g.Key])
			}
		}
	})

	t.Run("structs", func(t *testing.T) {
		gen := bench.NewGroupByGen(2000, 10, 7)
		rows := make([]bench.GroupByRow, 2000)
		var bigV1 int64
		var sumV3 float64
		v1 := map[string]int64{}
		for i := range rows {
			rows[i] = gen.Row()
			if rows[i].V1 > 2 {
				bigV1++
			}
			sumV3 += rows[i].V3
			v1[rows[i].ID1] += rows[i].V1
		}
		b := bag.FromSequence(rows, 6)

		if n, err := bag.Filter(b, rowBigV1).Count().Compute(ctx); err != nil || n != bigV1 {
			t.Fatalf("Filter.Count = %d, %v; want %d", n, err, bigV1)
		}
		v3 := bag.Map(b, rowV3)
		if s, err := bag.Sum(v3).Compute(ctx); err != nil || math.Abs(s-sumV3) > 1e-9*math.Abs(sumV3) {
			t.Fatalf("Sum(V3) = %v, %v; want %v", s, err, sumV3)
		}
		if m, err := bag.Mean(v3).Compute(ctx); err != nil || math.Abs(m-sumV3/2000) > 1e-9*math.Abs(sumV3/2000) {
			t.Fatalf("Mean(V3) = %v, %v; want %v", m, err, sumV3/2000)
		}
		pairs, err := bag.FoldBy(b, v1ByID1, 0).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, p := range pairs {
			got[p.Key] = p.Value
		}
		if !reflect.DeepEqual(got, v1) {
			t.Fatalf("FoldBy sum(V1) by ID1 = %v; want %v", got, v1)
		}
		back, err := b.Compute(ctx)
		if err != nil || !reflect.DeepEqual(back, rows) {
			t.Fatalf("Compute: %d rows, %v; want the %d rows back", len(back), err, len(rows))
		}
	})

	t.Run("random", func(t *testing.T) {
		r := array.Random(11, []int{300, 200}, []int{70, 60})
		// Sum generates and reduces each chunk in one task; Compute ships
		// the chunks, which the reference adds up here.
		dense, err := r.Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var want float64
		colSum, rowSum := make([]float64, 200), make([]float64, 300)
		for i := range 300 {
			for j := range 200 {
				v := dense.At(i, j)
				want += v
				colSum[j] += v
				rowSum[i] += v
			}
		}
		if math.Abs(want-30000) > 1000 {
			t.Fatalf("the random array sums to %v; want about 30000", want)
		}
		s, err := r.Sum().Compute(ctx)
		if err != nil || math.Abs(s.Float(0)-want) > 1e-9*want {
			t.Fatalf("Sum = %v, %v; want %v", s, err, want)
		}
		for axis, sums := range [][]float64{colSum, rowSum} {
			m, err := r.Mean(axis).Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m.Shape, []int{len(sums)}) {
				t.Fatalf("Mean(%d) has shape %v; want [%d]", axis, m.Shape, len(sums))
			}
			n := float64(dense.Shape[axis])
			for i, s := range sums {
				if math.Abs(m.Float(i)-s/n) > 1e-12 {
					t.Fatalf("Mean(%d)[%d] = %v; want %v", axis, i, m.Float(i), s/n)
				}
			}
		}
	})

	t.Run("elementwise", func(t *testing.T) {
		const rows, cols = 50, 40
		xs, ys, is := make([]float64, rows*cols), make([]float64, rows*cols), make([]int64, rows*cols)
		for i := range xs {
			xs[i] = float64(i)*0.5 - 300
			ys[i] = math.Sin(float64(i))
			is[i] = int64(i%97) - 40
		}
		// y's chunks differ from x's: the binary ops rechunk it on the workers.
		x := array.FromSlice(xs, []int{rows, cols}, []int{16, 15})
		y := array.FromSlice(ys, []int{rows, cols}, []int{20, 8})
		z := x.Mul(y).AddScalar(2).Sub(x.Abs().Sqrt()).DivScalar(4)
		want := make([]float64, len(xs))
		var wantSum float64
		for i := range xs {
			want[i] = (xs[i]*ys[i] + 2 - math.Sqrt(math.Abs(xs[i]))) / 4
			wantSum += want[i]
		}
		got, err := z.Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Shape, []int{rows, cols}) {
			t.Fatalf("shape %v; want [%d %d]", got.Shape, rows, cols)
		}
		for i, w := range want {
			if got.Float(i) != w {
				t.Fatalf("element %d = %v; want %v", i, got.Float(i), w)
			}
		}
		s, err := z.Sum().Compute(ctx)
		if err != nil || math.Abs(s.Float(0)-wantSum) > 1e-9*math.Abs(wantSum) {
			t.Fatalf("Sum = %v, %v; want %v", s, err, wantSum)
		}

		// int64 stays int64 and sums exactly, along an axis.
		rs, err := array.FromSlice(is, []int{rows, cols}, []int{16, 15}).Sum(1).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rs.DType != array.Int64 || !reflect.DeepEqual(rs.Shape, []int{rows}) {
			t.Fatalf("Sum(1) is %v of shape %v; want int64 of [%d]", rs.DType, rs.Shape, rows)
		}
		for i := range rows {
			var w int64
			for j := range cols {
				w += is[i*cols+j]
			}
			if rs.I[i] != w {
				t.Fatalf("Sum(1)[%d] = %d; want %d", i, rs.I[i], w)
			}
		}
	})

	t.Run("matmul", func(t *testing.T) {
		const n, k, m = 30, 20, 25
		as, bs := make([]float64, n*k), make([]float64, k*m)
		for i := range as {
			as[i] = math.Cos(float64(i)) * 3
		}
		for i := range bs {
			bs[i] = float64(i%11) - 5
		}
		// b's row chunks do not match a's column chunks: MatMul rechunks b.
		a := array.FromSlice(as, []int{n, k}, []int{8, 7})
		b := array.FromSlice(bs, []int{k, m}, []int{6, 10})
		got, err := a.MatMul(b).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Shape, []int{n, m}) {
			t.Fatalf("shape %v; want [%d %d]", got.Shape, n, m)
		}
		for i := range n {
			for j := range m {
				var w float64
				for l := range k {
					w += as[i*k+l] * bs[l*m+j]
				}
				if g := got.At(i, j); math.Abs(g-w) > 1e-9*(1+math.Abs(w)) {
					t.Fatalf("(%d, %d) = %v; want %v", i, j, g, w)
				}
			}
		}
	})
}

// A pool of two binaries: two plain dusk workers beside one built from a
// program that registers its own functions. Tasks of those functions go to
// the worker that has them, though the plain ones are idle and have more
// threads, and the answers are right; the rest spread over every worker.
func TestMixedBinaries(t *testing.T) {
	sched := start(t, bins.dusk, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-holder-timeout", "2s")
	for i := range 2 {
		start(t, bins.dusk, "worker", "--scheduler", sched.addr, "--host", "127.0.0.1", "--nthreads", "2",
			"--name", fmt.Sprint("plain-", i), "--local-directory", t.TempDir())
	}
	start(t, bins.dusktest, "worker", "--scheduler", sched.addr, "--host", "127.0.0.1", "--nthreads", "1",
		"--name", "app", "--local-directory", t.TempDir())
	c, err := dusk.NewClient(testCtx(t), dusk.Address(sched.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := dusk.WithClient(testCtx(t), c)
	if _, err := c.WaitForWorkers(ctx, 3); err != nil {
		t.Fatal(err)
	}
	clicks := make([]map[string]any, 2000)
	want := int64(0)
	for i := range clicks {
		clicks[i] = map[string]any{"id": float64(i), "area": []string{"north", "south"}[i%2], "num_clicks": float64(i % 6)}
		if i%6 > 2 {
			want++
		}
	}
	b := bag.FromSequence(clicks, 12)
	for run := range 3 {
		n, err := bag.Filter(b, manyClicks).Count().Compute(ctx)
		if err != nil || n != want {
			t.Fatalf("run %d: Filter(registered).Count = %d, %v; want %d", run, n, err, want)
		}
	}
	areas, err := bag.Frequencies(bag.Map(bag.Filter(b, manyClicks), clickArea)).Compute(ctx)
	if err != nil || len(areas) != 2 {
		t.Fatalf("Frequencies of a registered map: %v, %v", areas, err)
	}
	// A grouping by a registered key: its shuffle's outputs are assembled
	// by the worker that has the function.
	grouped, err := bag.GroupBy(bag.Filter(b, manyClicks), clickArea, 3).Compute(ctx)
	if err != nil || len(grouped) != 2 || len(grouped[0].Value)+len(grouped[1].Value) != int(want) {
		t.Fatalf("GroupBy a registered key: %d groups, %v", len(grouped), err)
	}
	// A function no worker's binary registers waits --no-holder-timeout for
	// one, then fails naming it and the workers there are.
	_, err = bag.Filter(b, nobodyHas).Count().Compute(ctx)
	if err == nil || !strings.Contains(err.Error(), "registers bag:test-nobody-has") || !strings.Contains(err.Error(), "s for one (the workers here: ") {
		t.Fatalf("a function nobody registers: %v", err)
	}
}
