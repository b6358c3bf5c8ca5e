package exchange

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/codec/codectest"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// piecesTestRecord makes a partition of n rows: int64 with nulls, float64,
// strings encoded with a dictionary of its own (tag names it), plain
// strings.
func piecesTestRecord(rng *rand.Rand, n int, tag string) arrow.Record {
	ints, floats, codes := make([]int64, n), make([]float64, n), make([]int32, n)
	valid := make([]byte, (n+7)/8)
	var plain []byte
	offs := []int32{0}
	for i := range n {
		ints[i], floats[i], codes[i] = rng.Int63n(1000), rng.Float64(), int32(rng.Intn(3))
		if rng.Intn(5) != 0 {
			valid[i/8] |= 1 << (i % 8)
		}
		plain = fmt.Appendf(plain, "s%d", rng.Intn(1000))
		offs = append(offs, int32(len(plain)))
	}
	dictData := []byte("a" + tag + "b" + "c")
	dict := kernel.NewString([]int32{0, 1 + int32(len(tag)), 2 + int32(len(tag)), 3 + int32(len(tag))}, dictData, nil)
	defer dict.Release()
	cols := []arrow.Array{kernel.NewInt64(ints, valid), kernel.NewFloat64(floats, nil), kernel.NewDict(codes, dict, nil), kernel.NewString(offs, plain, nil)}
	fields := []arrow.Field{{Name: "i", Type: cols[0].DataType(), Nullable: true}, {Name: "f", Type: cols[1].DataType(), Nullable: true},
		{Name: "d", Type: cols[2].DataType(), Nullable: true}, {Name: "s", Type: cols[3].DataType(), Nullable: true}}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// plainRecord decodes rec's dictionary columns, for comparing.
func plainRecord(t *testing.T, rec arrow.Record) arrow.Record {
	t.Helper()
	cols := make([]arrow.Array, rec.NumCols())
	fields := make([]arrow.Field, rec.NumCols())
	for c, col := range rec.Columns() {
		plain, err := kernel.Concat(kernel.PlainType(col.DataType()), []arrow.Array{col})
		if err != nil {
			t.Fatal(err)
		}
		cols[c], fields[c] = plain, arrow.Field{Name: rec.ColumnName(c), Type: plain.DataType(), Nullable: true}
	}
	defer release(cols)
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}

// Split pieces, read together as an output's side, hold the rows of
// every partition sent there in order, as copying each piece out and
// concatenating does, whether or not the split copied some columns out
// (a join's keys); and they travel as the records they stand for.
func TestSplitPiecesReadAsOneTable(t *testing.T) {
	for _, copied := range [][]string{nil, {"i", "d"}} {
		t.Run(fmt.Sprintf("copied %v", copied), func(t *testing.T) { testSplitPieces(t, copied) })
	}
}

func testSplitPieces(t *testing.T, copied []string) {
	rng := rand.New(rand.NewSource(5))
	const outputs = 3
	var splits []*registry.Split
	var recs []arrow.Record
	var parts [][]int32
	for k, n := range []int{40, 25, 0, 60} {
		rec := piecesTestRecord(rng, n, fmt.Sprint(k))
		defer rec.Release()
		p := make([]int32, n)
		for i := range p {
			p[i] = int32(rng.Intn(outputs))
			if k == 1 {
				p[i] = 2 // one partition sends all its rows to one output
			}
		}
		cols, _, err := KeyColumns(rec, copied)
		if err != nil {
			t.Fatal(err)
		}
		recs, parts = append(recs, rec), append(parts, p)
		splits = append(splits, splitOf(rec, p, outputs, copied, cols))
	}
	for out := range outputs {
		var pieces []any
		var want []arrow.Record
		for k, s := range splits {
			v := s.Pieces[out]
			if v == nil {
				continue
			}
			pieces = append(pieces, v)
			var rows []int32
			for i, q := range parts[k] {
				if int(q) == out {
					rows = append(rows, int32(i))
				}
			}
			want = append(want, kernel.TakeRecord(recs[k], rows))
			if p, ok := v.(*rowsPiece); ok {
				if len(p.copied) != len(copied) {
					t.Errorf("a piece holds %d columns copied out, not %d", len(p.copied), len(copied))
				}
				checkTravels(t, p)
			}
		}
		wantRec, err := kernel.ConcatRecords(plainRecord(t, recs[0]).Schema(), plainAll(t, want))
		if err != nil {
			t.Fatal(err)
		}
		tc := &registry.Context{Pieces: [][]any{pieces}}
		got, err := Gathered("test", tc, nil, 0, ops.SpecOf(recs[0].Schema()))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := got.Column(2).(*array.Dictionary); !ok {
			t.Errorf("output %d: strings of small dictionaries came out %s, not encoded", out, got.Column(2).DataType())
		}
		if plain := plainRecord(t, got); !array.RecordEqual(plain, wantRec) {
			t.Errorf("output %d:\ngot  %v\nwant %v", out, plain, wantRec)
		}
		got.Release()
		// A join reads its keys, copied out or not, as the same columns.
		side, err := sideOf("test", tc, nil, 0, ops.SpecOf(recs[0].Schema()))
		if err != nil {
			t.Fatal(err)
		}
		keys, err := joinKeys(side, []string{"i", "d", "s"})
		if err != nil {
			t.Fatal(err)
		}
		for k, c := range []int{0, 2, 3} {
			plain, err := kernel.Concat(kernel.PlainType(keys[k].DataType()), keys[k:k+1])
			if err != nil {
				t.Fatal(err)
			}
			if !array.Equal(plain, wantRec.Column(c)) {
				t.Errorf("output %d: key %s:\ngot  %v\nwant %v", out, wantRec.ColumnName(c), plain, wantRec.Column(c))
			}
			plain.Release()
		}
		release(keys)
		side.release()
	}
	for _, s := range splits {
		for _, v := range s.Pieces {
			if v != nil {
				v.(interface{ Release() }).Release()
			}
		}
	}
}

func plainAll(t *testing.T, recs []arrow.Record) []arrow.Record {
	out := make([]arrow.Record, len(recs))
	for i, r := range recs {
		out[i] = plainRecord(t, r)
		r.Release()
	}
	return out
}

// checkTravels encodes p as a transfer or a spill does and reads it back:
// the record its rows make.
func checkTravels(t *testing.T, p *rowsPiece) {
	t.Helper()
	v := codectest.RoundTrip(t, p)
	got, ok := v.(arrow.Record)
	if !ok {
		t.Fatalf("a piece reads back as %T", v)
	}
	defer got.Release()
	want := p.Record()
	defer want.Release()
	if !array.RecordEqual(plainRecord(t, got), plainRecord(t, want)) {
		t.Errorf("a piece read back as %v, want %v", got, want)
	}
	if size := p.SizeBytes(); size <= 0 {
		t.Errorf("a piece of %d rows counts %d bytes", len(p.rows), size)
	}
}

// Pieces whose column differs in kind give an error that names it, not a
// panic.
func TestPiecesOfDifferentKinds(t *testing.T) {
	ints := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil),
		[]arrow.Array{kernel.NewInt64([]int64{1, 2, 3}, nil)}, 3)
	floats := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil),
		[]arrow.Array{kernel.NewFloat64([]float64{1.5, 2.5}, nil)}, 2)
	defer ints.Release()
	defer floats.Release()
	pieces := []any{&rowsPiece{src: ints, rows: []int32{0, 2}}, floats}
	_, err := Gathered("test", &registry.Context{Pieces: [][]any{pieces}}, nil, 0, nil)
	if err == nil || !strings.Contains(err.Error(), "column x is int64 in one piece and float64 in another") {
		t.Errorf("got %v", err)
	}
}
