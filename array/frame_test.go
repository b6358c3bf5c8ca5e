package array_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	arrowarray "github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/array"
	"github.com/duskdata/dusk/dataframe"
)

type frameRow struct {
	A int64
	B float64
	N *int64   // int64 with nulls
	F *float64 // float64 with nulls
	S string
	T bool
}

func frameRows(n int) []frameRow {
	rows := make([]frameRow, n)
	fs := randFloats(7, n)
	is := randInts(7, n)
	for i := range rows {
		rows[i] = frameRow{A: is[i], B: fs[i], S: fmt.Sprint(i), T: i%2 == 0}
		if i%3 != 0 {
			v := is[i] * 10
			rows[i].N = &v
		}
		if i%4 != 1 {
			v := fs[i] / 2
			rows[i].F = &v
		}
	}
	return rows
}

// refColumn is a column of rows as float64s, nulls as NaN.
func refColumn(rows []frameRow, col string) []float64 {
	out := make([]float64, len(rows))
	for i, r := range rows {
		switch col {
		case "A":
			out[i] = float64(r.A)
		case "B":
			out[i] = r.B
		case "N":
			out[i] = math.NaN()
			if r.N != nil {
				out[i] = float64(*r.N)
			}
		case "F":
			out[i] = math.NaN()
			if r.F != nil {
				out[i] = *r.F
			}
		}
	}
	return out
}

// refMatrix is the row-major (rows × cols) reference.
func refMatrix(rows []frameRow, cols []string) []float64 {
	out := make([]float64, len(rows)*len(cols))
	for j, c := range cols {
		for i, v := range refColumn(rows, c) {
			out[i*len(cols)+j] = v
		}
	}
	return out
}

// partLens are the row counts of FromRecords' partitions.
func partLens(n, parts int) []int {
	var out []int
	for p := range parts {
		out = append(out, (p+1)*n/parts-p*n/parts)
	}
	return out
}

func wantChunks(lens []int) []int {
	var out []int
	for _, n := range lens {
		if n > 0 {
			out = append(out, n)
		}
	}
	if out == nil {
		out = []int{0}
	}
	return out
}

func TestFromColumns(t *testing.T) {
	ctx := newClient(t)
	cases := []struct {
		cols []string
		dt   array.DType
	}{
		{[]string{"A"}, array.Int64},
		{[]string{"A", "A"}, array.Int64},
		{[]string{"A", "B"}, array.Float64},
		{[]string{"B", "F", "A"}, array.Float64},
		{[]string{"A", "N"}, array.Float64}, // int64 with nulls: float64, NaN
		{[]string{"F"}, array.Float64},
	}
	for _, n := range []int{0, 1, 5, 23} {
		rows := frameRows(n)
		for _, parts := range []int{1, 3, 7, 30} { // 30 > rows: empty partitions
			f := dataframe.FromRecords(rows, parts)
			lens := partLens(n, parts)
			for _, c := range cases {
				what := fmt.Sprintf("rows=%d parts=%d cols=%v", n, parts, c.cols)
				a := array.FromColumns(ctx, f, c.cols...)
				if err := a.Err(); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				dt := c.dt
				if n == 0 && !slices.Contains(c.cols, "B") && !slices.Contains(c.cols, "F") {
					dt = array.Int64 // no rows, so no nulls
				}
				if a.DType() != dt {
					t.Fatalf("%s: dtype %s, want %s", what, a.DType(), dt)
				}
				if got, want := a.Chunks()[0], wantChunks(lens); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s: row chunks %v, want %v", what, got, want)
				}
				d := compute(t, ctx, a)
				if d.DType != dt {
					t.Fatalf("%s: computed dtype %s, want %s", what, d.DType, dt)
				}
				checkDense(t, what, d, []int{n, len(c.cols)}, refMatrix(rows, c.cols))
			}
		}
	}
}

func TestFromColumn(t *testing.T) {
	ctx := newClient(t)
	rows := frameRows(23)
	for _, parts := range []int{1, 4, 30} {
		f := dataframe.FromRecords(rows, parts)
		for _, col := range []string{"A", "B", "N", "F"} {
			what := fmt.Sprintf("parts=%d col=%s", parts, col)
			a := array.FromColumn(ctx, f, col)
			d := compute(t, ctx, a)
			checkDense(t, what, d, []int{23}, refColumn(rows, col))
			// Reductions run over the partition chunks as over any other.
			want := 0.0
			for _, v := range refColumn(rows, col) {
				want += v
			}
			checkDense(t, what+" sum", compute(t, ctx, a.Sum()), nil, []float64{want})
		}
	}
}

// TestFromColumnsAllColumns: no columns named means all of them, here all
// numeric.
func TestFromColumnsAllColumns(t *testing.T) {
	ctx := newClient(t)
	rows := frameRows(11)
	f := dataframe.FromRecords(rows, 3).Select("B", "A")
	d := compute(t, ctx, array.FromColumns(ctx, f))
	checkDense(t, "all columns", d, []int{11, 2}, refMatrix(rows, []string{"B", "A"}))
}

// TestFromColumnsEmptyPartitions uses explicit empty records and a filter
// that empties partitions, so chunks come from non-empty ones only.
func TestFromColumnsEmptyPartitions(t *testing.T) {
	ctx := newClient(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "y", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	rec := func(xs []int64, ys []float64) arrow.Record {
		b := arrowarray.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		b.Field(0).(*arrowarray.Int64Builder).AppendValues(xs, nil)
		b.Field(1).(*arrowarray.Float64Builder).AppendValues(ys, nil)
		return b.NewRecord()
	}
	recs := []arrow.Record{
		rec(nil, nil),
		rec([]int64{1, 2, 3}, []float64{.5, 1.5, 2.5}),
		rec(nil, nil),
		rec([]int64{4}, []float64{3.5}),
		rec(nil, nil),
	}
	f := dataframe.FromArrow(recs...)
	for _, r := range recs {
		r.Release()
	}
	a := array.FromColumns(ctx, f, "y", "x")
	if got := fmt.Sprint(a.Chunks()); got != "[[3 1] [2]]" {
		t.Fatalf("chunks %s, want [[3 1] [2]]", got)
	}
	checkDense(t, "explicit empty", compute(t, ctx, a), []int{4, 2}, []float64{.5, 1, 1.5, 2, 2.5, 3, 3.5, 4})

	x := array.FromColumn(ctx, f.Filter(dataframe.Col("x").Ge(3)), "x")
	if x.DType() != array.Int64 {
		t.Fatalf("dtype %s, want int64", x.DType())
	}
	checkDense(t, "filtered", compute(t, ctx, x), []int{2}, []float64{3, 4})

	none := array.FromColumns(ctx, f.Filter(dataframe.Col("x").Gt(100)), "x", "y")
	checkDense(t, "all filtered out", compute(t, ctx, none), []int{0, 2}, nil)
}

func TestFromColumnsPersisted(t *testing.T) {
	ctx := newClient(t)
	rows := frameRows(17)
	f, err := dataframe.FromRecords(rows, 4).Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	d := compute(t, ctx, array.FromColumns(ctx, f, "N", "B"))
	checkDense(t, "persisted", d, []int{17, 2}, refMatrix(rows, []string{"N", "B"}))
}

func TestFromColumnsErrors(t *testing.T) {
	ctx := newClient(t)
	f := dataframe.FromRecords(frameRows(5), 2)
	for _, tt := range []struct {
		cols []string
		want string
	}{
		{[]string{"A", "S"}, `column "S" has type utf8`},
		{[]string{"T"}, `column "T" has type bool`},
		{[]string{"nope"}, `no column "nope"`},
	} {
		a := array.FromColumns(ctx, f, tt.cols...)
		if a.Err() == nil || !strings.Contains(a.Err().Error(), tt.want) {
			t.Errorf("FromColumns %v: error %v, want one containing %q", tt.cols, a.Err(), tt.want)
		}
		if _, err := a.Compute(ctx); err == nil {
			t.Errorf("FromColumns %v: Compute succeeded", tt.cols)
		}
	}
}
