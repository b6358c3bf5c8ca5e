package kernel

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// genGroupIDs assigns rows to n groups at random, dropping about one in
// eight (-1); some groups may get no rows.
func genGroupIDs(rng *rand.Rand, rows, n int) []int32 {
	ids := make([]int32, rows)
	for i := range ids {
		if n == 0 || rng.Intn(8) == 0 {
			ids[i] = -1
		} else {
			ids[i] = int32(rng.Intn(n))
		}
	}
	return ids
}

// groupCounts are the group counts the holistic tests run over.
var groupCounts = []int{0, 1, 3, 40}

// forGroups runs f over every shape, value type and group count.
func forGroups(t *testing.T, types []colType, f func(t *testing.T, c col, ids []int32, n int)) {
	for _, ct := range types {
		for _, n := range groupCounts {
			t.Run(fmt.Sprintf("%s/groups=%d", ct, n), func(t *testing.T) {
				forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
					c := genCol(rng, ct, s)
					defer release(c)
					f(t, c, genGroupIDs(rng, s.n, n), n)
				})
			})
		}
	}
}

// groupValues lists each group's rows with a value.
func groupValues(c col, ids []int32, n int) [][]int {
	rows := make([][]int, n)
	for i, g := range ids {
		if g >= 0 && c.valid[i] {
			rows[g] = append(rows[g], i)
		}
	}
	return rows
}

// refQuantile sorts each group's values and interpolates as pandas does.
func refQuantile(c col, ids []int32, n int, q float64) col {
	out := col{kind: KindFloat, valid: make([]bool, n), flts: make([]float64, n)}
	for g, rows := range groupValues(c, ids, n) {
		if len(rows) == 0 {
			continue
		}
		out.valid[g] = true
		var vals []float64
		nan := false
		for _, i := range rows {
			v := asFloat(c, i)
			nan = nan || math.IsNaN(v)
			vals = append(vals, v)
		}
		if nan {
			out.flts[g] = math.NaN()
			continue
		}
		sort.Float64s(vals)
		pos := q * float64(len(vals)-1)
		lo := math.Floor(pos)
		out.flts[g] = vals[int(lo)]
		if frac := pos - lo; frac != 0 {
			a, b := vals[int(lo)], vals[int(lo)+1]
			switch {
			case a == b: // infinities too
			case math.IsInf(a, 0) || math.IsInf(b, 0): // as DuckDB: -Inf and 3 interpolate to -Inf
				out.flts[g] = a*(1-frac) + b*frac
			default:
				out.flts[g] += (b - a) * frac
			}
		}
	}
	return out
}

// checkFloats is checkCol where -0 equals 0: which of the two a sort
// puts first is not fixed.
func checkFloats(t *testing.T, what string, got, want col) {
	t.Helper()
	for i := range want.flts {
		if want.valid[i] && i < got.len() && got.valid[i] && got.flts[i] == 0 && want.flts[i] == 0 {
			got.flts[i] = want.flts[i]
		}
	}
	checkCol(t, what, got, want)
}

// holisticChecked are the holistic aggregations checked against a
// reference here, through Whole (TestEveryAggregationHasAReference).
var holisticChecked = []AggFunc{Median, Quantile, First, Last, Nunique}

func TestGroupQuantileMatchesReference(t *testing.T) {
	forGroups(t, []colType{tInt, tFloat}, func(t *testing.T, c col, ids []int32, n int) {
		for _, q := range []float64{0, 0.1, 0.25, 0.5, 0.9, 1} {
			got, err := Whole(Quantile, c.arr, ids, n, q)
			if err != nil {
				t.Fatal(err)
			}
			checkFloats(t, fmt.Sprintf("quantile %v", q), readCol(t, got), refQuantile(c, ids, n, q))
			got.Release()
		}
		med, err := Whole(Median, c.arr, ids, n, 0)
		if err != nil {
			t.Fatal(err)
		}
		checkFloats(t, "median", readCol(t, med), refQuantile(c, ids, n, 0.5))
		med.Release()
	})
}

func TestGroupQuantileExamples(t *testing.T) {
	vals := ints(1, 2, 3, 4, nil, 10, 7)
	ids := []int32{0, 0, 0, 0, 1, 2, -1}
	for _, tt := range []struct {
		q    float64
		want *col
	}{
		{0.5, floatCol(2.5, nil, 10.0)},
		{0.25, floatCol(1.75, nil, 10.0)},
		{0, floatCol(1.0, nil, 10.0)},
		{1, floatCol(4.0, nil, 10.0)},
	} {
		got, err := GroupQuantile(vals, ids, 3, tt.q)
		if err != nil {
			t.Fatal(err)
		}
		checkCol(t, fmt.Sprintf("q=%v", tt.q), readCol(t, got), *tt.want)
	}
}

func TestGroupQuantileErrors(t *testing.T) {
	tests := []struct {
		name string
		col  arrow.Array
		q    float64
		want string
	}{
		{"string column", strs("a"), 0.5, "numeric"},
		{"bool column", bools(true), 0.5, "numeric"},
		{"q above 1", ints(1), 1.5, "outside"},
		{"q below 0", ints(1), -0.1, "outside"},
		{"q NaN", ints(1), math.NaN(), "outside"},
	}
	for _, tt := range tests {
		_, err := GroupQuantile(tt.col, []int32{0}, 1, tt.q)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one saying %q", tt.name, err, tt.want)
		}
	}
}

func TestGroupNuniqueMatchesReference(t *testing.T) {
	forGroups(t, allColTypes, func(t *testing.T, c col, ids []int32, n int) {
		want := col{kind: KindInt, valid: repeat(true, n), ints: make([]int64, n)}
		for g, rows := range groupValues(c, ids, n) {
			seen := map[any]bool{}
			for _, i := range rows {
				seen[c.key(i)] = true
			}
			want.ints[g] = int64(len(seen))
		}
		got, err := Whole(Nunique, c.arr, ids, n, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer got.Release()
		checkCol(t, "nunique", readCol(t, got), want)
	})
}

func TestGroupFirstLastMatchesReference(t *testing.T) {
	forGroups(t, allColTypes, func(t *testing.T, c col, ids []int32, n int) {
		first, last := make([]int, n), make([]int, n)
		for g, rows := range groupValues(c, ids, n) {
			first[g], last[g] = -1, -1
			if len(rows) > 0 {
				first[g], last[g] = rows[0], rows[len(rows)-1]
			}
		}
		for _, tt := range []struct {
			name string
			f    AggFunc
			rows []int
		}{{"first", First, first}, {"last", Last, last}} {
			got, err := Whole(tt.f, c.arr, ids, n, 0)
			if err != nil {
				t.Fatal(err)
			}
			if rt := tt.f.ResultType(c.arr.DataType()); !SameType(rt, got.DataType()) {
				t.Errorf("%s of %s: ResultType says %s, Whole gives %s", tt.name, c.arr.DataType(), rt, got.DataType())
			}
			if !SameType(got.DataType(), c.arr.DataType()) {
				t.Errorf("%s of %s is %s", tt.name, c.arr.DataType(), got.DataType())
			}
			checkCol(t, tt.name, readCol(t, got), c.gatherOrNull(tt.rows))
			got.Release()
		}
	})
}

// TestSelectKth checks quickselect against a sort, on sizes around its
// switch to sorting and on values with many ties, already sorted or
// reversed.
func TestSelectKth(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, n := range []int{1, 2, 15, 16, 17, 100, 1000, 5000} {
		for _, shape := range []string{"random", "ties", "sorted", "reversed", "equal"} {
			base := make([]float64, n)
			for i := range base {
				switch shape {
				case "random":
					base[i] = rng.NormFloat64()
				case "ties":
					base[i] = float64(rng.Intn(5))
				case "sorted":
					base[i] = float64(i)
				case "reversed":
					base[i] = float64(n - i)
				case "equal":
					base[i] = 3
				}
			}
			want := slices.Sorted(slices.Values(base))
			for _, k := range []int{0, n / 3, n / 2, n - 1} {
				s := slices.Clone(base)
				selectKth(s, k)
				if s[k] != want[k] || slices.Max(s[:k+1]) > s[k] || slices.Min(s[k:]) < s[k] {
					t.Fatalf("n=%d %s k=%d: s[k]=%v, want %v, or not partitioned", n, shape, k, s[k], want[k])
				}
			}
		}
	}
}

// The quantile between two equal infinities, or between an infinity and a
// number, is that infinity (it was NaN: Inf + (Inf - Inf) × frac); found
// by the differential fuzzer.
func TestQuantileOfInfinities(t *testing.T) {
	col := NewFloat64([]float64{math.Inf(1), math.Inf(1), 1, math.Inf(-1), math.Inf(-1), math.Inf(-1), 3}, nil)
	defer col.Release()
	got, err := GroupQuantile(col, []int32{0, 0, 1, 2, 2, 3, 3}, 4, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	vals := got.(*array.Float64).Float64Values()
	if !math.IsInf(vals[0], 1) || vals[1] != 1 || !math.IsInf(vals[2], -1) || !math.IsInf(vals[3], -1) {
		t.Errorf("medians %v, want +Inf 1 -Inf -Inf", vals)
	}
}
