package kernel

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// genRecord makes a record with one column of every type, each shaped by s
// (sliced columns start at different offsets). The caller releases it.
func genRecord(rng *rand.Rand, s shape) (arrow.Record, []col) {
	fields := make([]arrow.Field, len(allColTypes))
	cols := make([]col, len(allColTypes))
	arrs := make([]arrow.Array, len(allColTypes))
	for i, ct := range allColTypes {
		fields[i] = arrow.Field{Name: ct.String(), Type: ct.arrowType(), Nullable: true}
		cs := s
		if cs.off > 0 {
			cs.off += i
		}
		cols[i] = genCol(rng, ct, cs)
		arrs[i] = cols[i].arr
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), arrs, int64(s.n))
	release(cols...)
	return rec, cols
}

// checkRecord compares rec, column by column, with want's rows at idx.
func checkRecord(t *testing.T, rec arrow.Record, want []col, idx []int) {
	t.Helper()
	if rec.NumRows() != int64(len(idx)) {
		t.Errorf("%d rows, want %d", rec.NumRows(), len(idx))
		return
	}
	for c, w := range want {
		got := rec.Column(c)
		if got.Len() != len(idx) {
			t.Errorf("column %s has %d rows, want %d", rec.ColumnName(c), got.Len(), len(idx))
			continue
		}
		if !arrow.TypeEqual(got.DataType(), rec.Schema().Field(c).Type) {
			t.Errorf("column %s is %s, its field %s", rec.ColumnName(c), got.DataType(), rec.Schema().Field(c).Type)
		}
		checkCol(t, rec.ColumnName(c), readCol(t, got), w.gather(idx))
	}
}

// randomIndices draws up to 2n indices into n rows, repeats and any order.
func randomIndices(rng *rand.Rand, n int) []int {
	if n == 0 {
		return nil
	}
	idx := make([]int, rng.Intn(2*n+1))
	for i := range idx {
		idx[i] = rng.Intn(n)
	}
	return idx
}

func toInt32s(idx []int) []int32 {
	out := make([]int32, len(idx))
	for i, v := range idx {
		out[i] = int32(v)
	}
	return out
}

func TestTakeMatchesReference(t *testing.T) {
	for _, ct := range allColTypes {
		t.Run(ct.String(), func(t *testing.T) {
			forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
				c := genCol(rng, ct, s)
				defer release(c)
				for _, idx := range [][]int{randomIndices(rng, s.n), reversed(s.n), nil} {
					got := Take(c.arr, toInt32s(idx))
					if !arrow.TypeEqual(got.DataType(), c.arr.DataType()) {
						t.Errorf("Take of %s gave %s", c.arr.DataType(), got.DataType())
					}
					checkCol(t, "Take", readCol(t, got), c.gather(idx))
					got.Release()
				}
			})
		})
	}
}

func reversed(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = n - 1 - i
	}
	return idx
}

func TestTakeRecordMatchesReference(t *testing.T) {
	forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
		rec, cols := genRecord(rng, s)
		defer rec.Release()
		idx := randomIndices(rng, s.n)
		got := TakeRecord(rec, toInt32s(idx))
		defer got.Release()
		if !got.Schema().Equal(rec.Schema()) {
			t.Errorf("schema %s, want %s", got.Schema(), rec.Schema())
		}
		checkRecord(t, got, cols, idx)
	})
}

func TestFilterMatchesReference(t *testing.T) {
	forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
		rec, cols := genRecord(rng, s)
		defer rec.Release()
		for _, keep := range []int{0, 1, 2, 3} { // in four: rows kept
			sel := make([]uint8, s.n)
			var idx []int
			for i := range sel {
				if rng.Intn(4) < keep {
					sel[i] = 1
					idx = append(idx, i)
				}
			}
			got := Filter(rec, sel)
			checkRecord(t, got, cols, idx)
			got.Release()
		}
	})
}

func TestFilterFromMask(t *testing.T) {
	forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
		rec, cols := genRecord(rng, s)
		defer rec.Release()
		// Keep the rows whose int64 column is > 0; nulls drop out.
		m, err := Compare(Col(rec.Column(0)), Scalar(int64(0)), Gt, s.n)
		if err != nil {
			t.Fatal(err)
		}
		var idx []int
		for i := 0; i < s.n; i++ {
			if cols[0].valid[i] && cols[0].ints[i] > 0 {
				idx = append(idx, i)
			}
		}
		got := Filter(rec, m.Selected())
		defer got.Release()
		checkRecord(t, got, cols, idx)
	})
}

// Keeping every row returns the record itself, retained: releasing the
// result leaves the input alive.
func TestFilterKeepingEveryRowRetains(t *testing.T) {
	forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
		withCheckedMem(t, func(mem *memory.CheckedAllocator) {
			rec, cols := genRecord(rng, s)
			got := Filter(rec, repeat(uint8(1), s.n))
			if got != rec {
				t.Errorf("Filter keeping every row returned a new record")
			}
			got.Release()
			if s.n > 0 && mem.CurrentAlloc() == 0 {
				t.Fatalf("releasing Filter's result freed its input: it was not retained")
			}
			checkRecord(t, rec, cols, seq(s.n))
			rec.Release()
		})
	})
}

// Take and Filter results own what they hold: once they and their inputs
// are released, nothing stays allocated.
func TestTakeReleasesEverything(t *testing.T) {
	forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
		withCheckedMem(t, func(*memory.CheckedAllocator) {
			rec, _ := genRecord(rng, s)
			taken := TakeRecord(rec, toInt32s(randomIndices(rng, s.n)))
			sel := make([]uint8, s.n)
			for i := range sel {
				sel[i] = uint8(rng.Intn(2))
			}
			filtered := Filter(rec, sel)
			rec.Release()
			taken.Release()
			filtered.Release()
		})
	})
}

func seq(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}
