package kernel

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// Scatter puts each row in its part's record, in order, every column of
// every type alike, nulls and sliced columns included; a part no row goes
// to has no record.
func TestScatterMatchesReference(t *testing.T) {
	forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
		rec, cols := genRecord(rng, s)
		defer rec.Release()
		for _, n := range []int{1, 3, 40} {
			parts := make([]int32, s.n)
			rows := make([][]int, n)
			for i := range parts {
				parts[i] = int32(rng.Intn(n))
				if n == 3 {
					parts[i] = 2 * int32(rng.Intn(2)) // part 1 stays empty
				}
				rows[parts[i]] = append(rows[parts[i]], i)
			}
			got := Scatter(rec, parts, n)
			if len(got) != n {
				t.Fatalf("%d records, want %d", len(got), n)
			}
			for j, r := range got {
				if len(rows[j]) == 0 {
					if r != nil {
						t.Errorf("part %d of %d has no rows but a record of %d", j, n, r.NumRows())
						r.Release()
					}
					continue
				}
				if !r.Schema().Equal(rec.Schema()) {
					t.Errorf("schema %s, want %s", r.Schema(), rec.Schema())
				}
				checkRecord(t, r, cols, rows[j])
				r.Release()
			}
		}
	})
}

// A null-typed column (a count of one a row, OneEach) scatters as null
// columns of each part's length, beside a column whose rows move.
func TestScatterNullColumn(t *testing.T) {
	vals := []int64{10, 11, 12, 13, 14, 15, 16}
	parts := []int32{2, 0, 2, 2, 0, 3, 0}
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{
		{Name: "v", Type: arrow.PrimitiveTypes.Int64},
		{Name: "n", Type: arrow.Null, Nullable: true},
	}, nil), []arrow.Array{NewInt64(vals, nil), OneEach(len(vals))}, int64(len(vals)))
	defer rec.Release()
	want := map[int][]int64{0: {11, 14, 16}, 2: {10, 12, 13}, 3: {15}}
	for j, r := range Scatter(rec, parts, 4) {
		if len(want[j]) == 0 {
			if r != nil {
				t.Errorf("part %d: a record of %d rows, want none", j, r.NumRows())
			}
			continue
		}
		if got := r.Column(0).(*array.Int64).Int64Values(); !slices.Equal(got, want[j]) {
			t.Errorf("part %d: values %v, want %v", j, got, want[j])
		}
		n, ok := r.Column(1).(*array.Null)
		if !ok || n.Len() != len(want[j]) || n.NullN() != len(want[j]) {
			t.Errorf("part %d: count column %T of %d rows (%d null), want a null column of %d", j, r.Column(1), r.Column(1).Len(), r.Column(1).NullN(), len(want[j]))
		}
		r.Release()
	}
}
