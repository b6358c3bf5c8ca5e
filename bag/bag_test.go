package bag_test

import (
	"cmp"
	"errors"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"testing"

	"github.com/duskdata/dusk/bag"
)

var (
	double  = bag.Register("test-double", func(x int) int { return 2 * x })
	isOdd   = bag.Register("test-odd", func(x int) bool { return x%2 != 0 })
	repeat  = bag.Register("test-repeat", func(x int) []int { return slices.Repeat([]int{x}, x%3) })
	mod7    = bag.Register("test-mod7", func(x int) int { return x % 7 })
	toStr   = bag.Register("test-str", func(x int) string { return strconv.Itoa(x % 5) })
	sumPart = bag.Register("test-sum-part", func(xs []int) int64 {
		var s int64
		for _, x := range xs {
			s += int64(x)
		}
		return s
	})
	sumAgg = bag.Register("test-sum-agg", func(ps []int64) int64 {
		var s int64
		for _, p := range ps {
			s += p
		}
		return s
	})
	sumMod = bag.RegisterFold("test-sum-by-mod7", func(x int) int { return x % 7 },
		func(acc int, x int) int { return acc + x }, func(a, b int) int { return a + b })
)

func testInts() []int {
	r := rand.New(rand.NewSource(1))
	out := make([]int, 200)
	for i := range out {
		out[i] = r.Intn(50)
	}
	return out
}

func equal[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got %v\nwant %v", what, got, want)
	}
}

func TestItemwise(t *testing.T) {
	ctx := newClient(t)
	shapes(t, testInts(), func(t *testing.T, b *bag.Bag[int], items []int) {
		got, err := b.Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "compute", got, items)

		var wantMap, wantFilter, wantFlat []int
		for _, x := range items {
			wantMap = append(wantMap, 2*x)
			if x%2 != 0 {
				wantFilter = append(wantFilter, x)
			}
			wantFlat = append(wantFlat, slices.Repeat([]int{x}, x%3)...)
		}
		got, err = bag.Map(b, double).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "map", got, wantMap)
		got, err = bag.Filter(b, isOdd).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "filter", got, wantFilter)
		got, err = bag.FlatMap(b, repeat).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "flatmap", got, wantFlat)

		for _, n := range []int{0, 1, 5, len(items), len(items) + 3} {
			got, err := b.Take(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			equal(t, "take "+strconv.Itoa(n), got, items[:min(n, len(items))])
		}
	})
}

func TestAggregates(t *testing.T) {
	ctx := newClient(t)
	shapes(t, testInts(), func(t *testing.T, b *bag.Bag[int], items []int) {
		n, err := b.Count().Compute(ctx)
		if err != nil || n != int64(len(items)) {
			t.Fatalf("count = %d, %v; want %d", n, err, len(items))
		}
		sum := 0
		for _, x := range items {
			sum += x
		}
		s, err := bag.Sum(b).Compute(ctx)
		if err != nil || s != sum {
			t.Fatalf("sum = %d, %v; want %d", s, err, sum)
		}
		lo, errLo := bag.Min(b).Compute(ctx)
		hi, errHi := bag.Max(b).Compute(ctx)
		mean, errMean := bag.Mean(b).Compute(ctx)
		if len(items) == 0 {
			_, errVar := bag.Var(b, 0).Compute(ctx)
			for _, err := range []error{errLo, errHi, errMean, errVar} {
				if !errors.Is(err, bag.ErrEmpty) {
					t.Fatalf("empty bag: error %v, want ErrEmpty", err)
				}
			}
		} else {
			if errLo != nil || errHi != nil || errMean != nil {
				t.Fatal(errLo, errHi, errMean)
			}
			if lo != slices.Min(items) || hi != slices.Max(items) {
				t.Fatalf("min, max = %d, %d; want %d, %d", lo, hi, slices.Min(items), slices.Max(items))
			}
			want := float64(sum) / float64(len(items))
			if math.Abs(mean-want) > 1e-9 {
				t.Fatalf("mean = %v, want %v", mean, want)
			}
			var m2 float64 // the sequential reference: squared deviations from the mean
			for _, x := range items {
				m2 += (float64(x) - want) * (float64(x) - want)
			}
			for ddof := range 2 {
				v, errV := bag.Var(b, ddof).Compute(ctx)
				sd, errS := bag.Std(b, ddof).Compute(ctx)
				if errV != nil || errS != nil {
					t.Fatal(errV, errS)
				}
				if len(items) <= ddof {
					if !math.IsNaN(v) || !math.IsNaN(sd) {
						t.Fatalf("var, std (ddof %d) of %d items = %v, %v; want NaN", ddof, len(items), v, sd)
					}
					continue
				}
				wantV := m2 / float64(len(items)-ddof)
				if math.Abs(v-wantV) > 1e-9*max(1, wantV) || math.Abs(sd-math.Sqrt(wantV)) > 1e-9*max(1, math.Sqrt(wantV)) {
					t.Fatalf("var, std (ddof %d) = %v, %v; want %v, %v", ddof, v, sd, wantV, math.Sqrt(wantV))
				}
			}
		}
		red, err := bag.Reduction(b, sumPart, sumAgg).Compute(ctx)
		if err != nil || red != int64(sum) {
			t.Fatalf("reduction = %d, %v; want %d", red, err, sum)
		}
	})
}

// firstSeen is the reference for Frequencies and Distinct.
func firstSeen[T comparable](items []T) ([]T, map[T]int64) {
	var order []T
	counts := map[T]int64{}
	for _, x := range items {
		if counts[x] == 0 {
			order = append(order, x)
		}
		counts[x]++
	}
	return order, counts
}

func TestFrequenciesDistinctTopK(t *testing.T) {
	ctx := newClient(t)
	shapes(t, testInts(), func(t *testing.T, b *bag.Bag[int], items []int) {
		order, counts := firstSeen(items)
		freq, err := bag.Frequencies(b).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var want []bag.Pair[int, int64]
		for _, x := range order {
			want = append(want, bag.Pair[int, int64]{Key: x, Value: counts[x]})
		}
		equal(t, "frequencies", freq, want)

		dist, err := bag.Distinct(b).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		equal(t, "distinct", dist, order)

		for _, k := range []int{0, 1, 7, 1000} {
			top, err := bag.TopK(b, k).Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			sorted := slices.SortedFunc(slices.Values(items), func(x, y int) int { return cmp.Compare(y, x) })
			equal(t, "topk "+strconv.Itoa(k), top, sorted[:min(k, len(sorted))])
		}

		strs, err := bag.Frequencies(bag.Map(b, toStr)).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var strItems []string
		for _, x := range items {
			strItems = append(strItems, strconv.Itoa(x%5))
		}
		so, sc := firstSeen(strItems)
		var wantS []bag.Pair[string, int64]
		for _, x := range so {
			wantS = append(wantS, bag.Pair[string, int64]{Key: x, Value: sc[x]})
		}
		equal(t, "frequencies of strings", strs, wantS)
	})
}

func TestFoldByGroupBy(t *testing.T) {
	ctx := newClient(t)
	shapes(t, testInts(), func(t *testing.T, b *bag.Bag[int], items []int) {
		order, _ := firstSeen(bag.MustMap(items, func(x int) int { return x % 7 }))
		sums := map[int]int{}
		groups := map[int][]int{}
		for _, x := range items {
			sums[x%7] += x
			groups[x%7] = append(groups[x%7], x)
		}
		folded, err := bag.FoldBy(b, sumMod, 0).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var want []bag.Pair[int, int]
		for _, k := range order {
			want = append(want, bag.Pair[int, int]{Key: k, Value: sums[k]})
		}
		equal(t, "foldby", folded, want)

		for _, np := range []int{0, 1, 4} {
			g := bag.GroupBy(b, mod7, np)
			got, err := g.Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(groups) {
				t.Fatalf("groupby into %d: %d groups, want %d", np, len(got), len(groups))
			}
			for _, p := range got {
				equal(t, "group "+strconv.Itoa(p.Key), p.Value, groups[p.Key])
			}
		}
	})
}
