package kernel

import (
	"fmt"
	"math/rand"
	"slices"
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

// randomIndicesOrNull is randomIndices with some -1s.
func randomIndicesOrNull(rng *rand.Rand, n int) []int {
	idx := randomIndices(rng, n)
	for k := rng.Intn(4); k > 0; k-- {
		idx = append(idx, -1)
	}
	rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	return idx
}

// gatherOrNull is col.gather where -1 gives a null row.
func (c col) gatherOrNull(idx []int) col {
	out := col{kind: c.kind, valid: []bool{}}
	for _, i := range idx {
		if i >= 0 {
			g := c.gather([]int{i})
			out = concatCols(c.kind, []col{out, g})
			continue
		}
		out.valid = append(out.valid, false)
		switch c.kind {
		case KindInt:
			out.ints = append(out.ints, 0)
		case KindFloat:
			out.flts = append(out.flts, 0)
		case KindString:
			out.strs = append(out.strs, "")
		case KindBool:
			out.bools = append(out.bools, false)
		}
	}
	return out
}

// Take's results, with null rows, own what they hold: released, with their inputs,
// nothing stays allocated.
func TestTakeWithNullsReleasesEverything(t *testing.T) {
	forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
		withCheckedMem(t, func(*memory.CheckedAllocator) {
			rec, cols := genRecord(rng, s)
			defer rec.Release()
			idx := randomIndicesOrNull(rng, s.n)
			for c, w := range cols {
				got := Take(rec.Column(c), toInt32s(idx))
				if got.Len() != len(idx) || !SameType(got.DataType(), rec.Column(c).DataType()) {
					t.Fatalf("%s: %d rows of %s, want %d of %s", rec.ColumnName(c), got.Len(), got.DataType(), len(idx), rec.Column(c).DataType())
				}
				checkCol(t, rec.ColumnName(c), readCol(t, got), w.gatherOrNull(idx))
				got.Release()
			}
		})
	})
}

func TestTakeMatchesReference(t *testing.T) {
	for _, ct := range allColTypes {
		t.Run(ct.String(), func(t *testing.T) {
			forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
				c := genCol(rng, ct, s)
				defer release(c)
				for _, idx := range [][]int{randomIndices(rng, s.n), reversed(s.n), inOrder(s.n), randomIndicesOrNull(rng, s.n), {-1, -1}, nil} {
					got := Take(c.arr, toInt32s(idx))
					if len(idx) == s.n && s.n > 0 && slices.Equal(idx, inOrder(s.n)) && got != c.arr {
						t.Errorf("Take of every row in order copied them")
					}
					if !arrow.TypeEqual(got.DataType(), c.arr.DataType()) {
						t.Errorf("Take of %s gave %s", c.arr.DataType(), got.DataType())
					}
					checkCol(t, "Take", readCol(t, got), c.gatherOrNull(idx))
					got.Release()
				}
			})
		})
	}
}

func inOrder(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
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
		// Rows kept, in 64: few enough for the sparse paths (under one in
		// sparseKept), a quarter, half, most.
		for _, keep := range []int{0, 1, 3, 16, 32, 48} {
			sel := make([]uint8, s.n)
			var idx []int
			for i := range sel {
				if rng.Intn(64) < keep {
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

// Taking rows located in parts, in any order and with -1s, gives what
// concatenating the parts and taking does; string parts with dictionaries
// of their own, few beside the rows, come out encoded.
func TestTakeParts(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	sizes := []int{5, 0, 33, 1, 20}
	doffs, ddata := stringOffsets([]string{"a", "bb", "ccc"})
	dict := NewString(doffs, ddata, nil)
	defer dict.Release()
	var ints, floats, bools, strs, dicts, owndicts, mixed []arrow.Array
	total := 0
	for k, n := range sizes {
		iv, fv, bv, sv, dv := make([]int64, n), make([]float64, n), make([]uint8, n), make([]string, n), make([]int32, n)
		valid := make([]byte, (n+7)/8)
		for i := range n {
			iv[i], fv[i], bv[i], sv[i], dv[i] = r.Int63(), r.Float64(), uint8(r.Intn(2)), fmt.Sprint("s", r.Intn(99)), int32(r.Intn(3))
			if r.Intn(4) != 0 {
				valid[i/8] |= 1 << (i % 8)
			}
		}
		ints = append(ints, NewInt64(iv, valid))
		floats = append(floats, NewFloat64(fv, nil))
		bools = append(bools, NewBool(bv, valid))
		offs, data := stringOffsets(sv)
		strs = append(strs, NewString(offs, data, valid))
		dicts = append(dicts, NewDict(dv, dict, valid))
		// A dictionary of its own: the shared one's entries, in another
		// order and with one more.
		ooffs, odata := stringOffsets([]string{"ccc", fmt.Sprint("part", k), "a", "bb"})
		own := NewString(ooffs, odata, nil)
		ov := make([]int32, n)
		for i, v := range dv {
			ov[i] = []int32{2, 3, 0}[v]
		}
		owndicts = append(owndicts, NewDict(ov, own, valid))
		own.Release()
		if k%2 == 0 {
			mixed = append(mixed, NewDict(dv, dict, valid))
		} else {
			mixed = append(mixed, NewString(offs, data, valid))
		}
		total += n
	}
	ascending := make([]int32, 150)
	for j := range ascending {
		ascending[j] = int32(r.Intn(total))
	}
	slices.Sort(ascending)
	random := make([]int32, 150)
	for j := range random {
		random[j] = int32(r.Intn(total+1)) - 1
	}
	for name, parts := range map[string][]arrow.Array{"int": ints, "float": floats, "bool": bools, "string": strs, "dict": dicts, "own dicts": owndicts, "mixed": mixed} {
		whole, err := Concat(PlainType(parts[0].DataType()), parts)
		if err != nil {
			t.Fatal(err)
		}
		// Every row located by part and row, then those at idx.
		var part, row []int32
		for k, p := range parts {
			for r := range p.Len() {
				part, row = append(part, int32(k)), append(row, int32(r))
			}
		}
		all := RowsIn(part, row)
		for order, idx := range map[string][]int32{"ascending": ascending, "random": random, "at": random} {
			want := Take(whole, idx)
			loc := LocateRows(parts, idx)
			if order == "at" {
				loc = all.At(idx)
			}
			got := TakeParts(parts, loc)
			_, encoded := got.(*array.Dictionary)
			if wantEncoded := name == "dict" || name == "own dicts"; encoded != wantEncoded {
				t.Errorf("%s, %s: got %s", name, order, got.DataType())
			}
			if encoded {
				plain, _ := Concat(String, []arrow.Array{got})
				got.Release()
				got = plain
			}
			if !array.Equal(got, want) {
				t.Errorf("%s, %s: got %v, want %v", name, order, got, want)
			}
			got.Release()
			want.Release()
		}
		whole.Release()
		for _, p := range parts {
			p.Release()
		}
	}
}

// BenchmarkFilter keeps 1%, half, 90% and 98% of a 1M-row int64 column.
func BenchmarkFilter(b *testing.B) {
	const n = 1 << 20
	rng := rand.New(rand.NewSource(1))
	col := NewInt64(make([]int64, n), nil)
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "a", Type: col.DataType()}}, nil), []arrow.Array{col}, n)
	defer rec.Release()
	for _, pct := range []int{1, 50, 90, 98} {
		sel := make([]uint8, n)
		for i := range sel {
			if rng.Intn(100) < pct {
				sel[i] = 1
			}
		}
		b.Run(fmt.Sprintf("kept=%d%%", pct), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Filter(rec, sel).Release()
			}
		})
	}
}
