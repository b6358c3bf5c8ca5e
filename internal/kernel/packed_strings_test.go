package kernel

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
)

// TestScatterPacking: each output of ScatterPacking, its packed columns
// unpacked, equals Scatter's; a string column packs only where it has no
// null and no string longer than maxPackedString, and a column not named
// never packs. Rows are sliced at an offset, so that the last strings end
// at their buffer's end and the first do not start at its start.
func TestScatterPacking(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for _, tc := range []struct {
		name     string
		str      func(n int) col
		wantPack bool
	}{
		{"short", func(n int) col { return shortStrings(rng, n, 300, noNulls, false) }, true},
		{"nulls", func(n int) col { return shortStrings(rng, n, 300, someNulls, false) }, false},
		{"long", func(n int) col { return shortStrings(rng, n, 300, noNulls, true) }, false},
	} {
		for _, n := range []int{0, 1, 17, 2000} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, n), func(t *testing.T) {
				s, other := tc.str(n+3), shortStrings(rng, n+3, 50, noNulls, false)
				defer s.arr.Release()
				defer other.arr.Release()
				ints := genFull(rng, tInt, n+3, someNulls)
				defer ints.arr.Release()
				cols := []arrow.Array{array.NewSlice(s.arr, 3, int64(n+3)), array.NewSlice(ints.arr, 3, int64(n+3)), array.NewSlice(other.arr, 3, int64(n+3))}
				schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: cols[0].DataType()}, {Name: "i", Type: cols[1].DataType()}, {Name: "o", Type: cols[2].DataType()}}, nil)
				rec := array.NewRecord(schema, cols, int64(n))
				defer rec.Release()
				for _, c := range cols {
					c.Release()
				}
				outs := 1 + rng.Intn(9)
				parts := make([]int32, n)
				for i := range parts {
					parts[i] = int32(rng.Intn(outs))
				}
				wantPack := packable(rec.Column(0)) // a few rows may hold no null, no long string
				if n == 2000 && wantPack != tc.wantPack {
					t.Fatalf("packable %v, want %v", wantPack, tc.wantPack)
				}
				want, got := Scatter(rec, parts, outs), ScatterPacking(rec, parts, outs, []int{0})
				for j := range want {
					if (want[j] == nil) != (got[j] == nil) {
						t.Fatalf("output %d: %v, want %v", j, got[j], want[j])
					}
					if want[j] == nil {
						continue
					}
					defer want[j].Release()
					defer got[j].Release()
					if packed := IsPackedStrings(got[j].Column(0)); packed != wantPack {
						t.Errorf("output %d: key packed %v, want %v", j, packed, wantPack)
					}
					if !arrow.TypeEqual(got[j].Schema().Field(0).Type, got[j].Column(0).DataType()) {
						t.Errorf("output %d: schema says %s, column is %s", j, got[j].Schema().Field(0).Type, got[j].Column(0).DataType())
					}
					if IsPackedStrings(got[j].Column(2)) {
						t.Errorf("output %d: a column not named packed", j)
					}
					for c, w := range want[j].Columns() {
						u := UnpackStrings(got[j].Column(c))
						if !array.Equal(u, w) {
							t.Errorf("output %d column %d: %v, want %v", j, c, u, w)
						}
						u.Release()
					}
				}
			})
		}
	}
}

// TestPackedStringsIPC: a column of packed strings keeps its type and
// values through Arrow IPC (a transfer between workers, a spill).
func TestPackedStringsIPC(t *testing.T) {
	s := shortStrings(rand.New(rand.NewSource(3)), 100, 40, noNulls, false)
	defer s.arr.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: s.arr.DataType()}}, nil)
	rec := array.NewRecord(schema, []arrow.Array{s.arr}, 100)
	defer rec.Release()
	packed := ScatterPacking(rec, make([]int32, 100), 1, []int{0})[0]
	defer packed.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(packed.Schema()))
	if err := w.Write(packed); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !r.Next() {
		t.Fatalf("no record read back: %v", r.Err())
	}
	back := r.Record().Column(0)
	if !IsPackedStrings(back) {
		t.Fatalf("read back as %s", back.DataType())
	}
	u := UnpackStrings(back)
	defer u.Release()
	if !array.Equal(u, s.arr) {
		t.Errorf("read back %v, want %v", u, s.arr)
	}
}

// packedPiece is piece with its columns of strings that pack packed, as
// an aggregation's shuffle sends them.
func packedPiece(t *testing.T, piece []arrow.Array) []arrow.Array {
	t.Helper()
	if len(piece) == 0 || piece[0].Len() == 0 {
		return piece
	}
	fields := make([]arrow.Field, len(piece))
	pack := make([]int, len(piece))
	for c, a := range piece {
		fields[c], pack[c] = arrow.Field{Name: fmt.Sprint(c), Type: a.DataType(), Nullable: true}, c
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), piece, int64(piece[0].Len()))
	defer rec.Release()
	out := ScatterPacking(rec, make([]int32, rec.NumRows()), 1, pack)[0]
	cols := out.Columns()
	for _, c := range cols {
		c.Retain()
		t.Cleanup(c.Release)
	}
	out.Release()
	return cols
}
