package codec

import (
	"bytes"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/kernel/typetest"
)

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	c, err := For(v)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := c.Encode(&buf, v); err != nil {
		t.Fatal(err)
	}
	named, err := Named(c.Name())
	if err != nil {
		t.Fatal(err)
	}
	out, err := named.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestArrowRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := 0; i < 100000; i++ {
		if i%7 == 0 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(int64(i % 100)) // compresses
		}
		b.Field(1).(*array.Float64Builder).Append(r.Float64()) // does not
		b.Field(2).(*array.StringBuilder).Append("id" + strings.Repeat("x", i%5))
	}
	rec := b.NewRecord()
	defer rec.Release()
	out := roundTrip(t, rec).(arrow.Record)
	defer out.Release()
	if !array.RecordEqual(rec, out) {
		t.Fatal("the record differs after a round trip")
	}
	var buf bytes.Buffer
	if err := ArrowPlain.Encode(&buf, rec); err != nil {
		t.Fatal(err)
	}
	plain, err := ArrowPlain.Decode(&buf)
	if err != nil || !array.RecordEqual(rec, plain.(arrow.Record)) {
		t.Fatalf("uncompressed: %v", err)
	}
}

func TestScalarsAndJSON(t *testing.T) {
	if got := roundTrip(t, int64(-42)); got != int64(-42) {
		t.Fatalf("int64: %v", got)
	}
	type point struct{ X, Y int }
	Register(reflect.TypeFor[point](), JSON[point]())
	if got := roundTrip(t, point{3, 4}); got != (point{3, 4}) {
		t.Fatalf("json: %v", got)
	}
	if _, err := For(struct{ unknown int }{}); err == nil || !strings.Contains(err.Error(), "dusk.Register") {
		t.Fatalf("no codec: %v", err)
	}
	if _, err := Named("nope"); err == nil {
		t.Fatal("an unknown codec name was found")
	}
}

// A record larger than a batch goes in several batches and comes back whole,
// dictionaries and nulls included.
func TestArrowInBatches(t *testing.T) {
	idx := array.NewInt32Builder(memory.DefaultAllocator)
	vals := array.NewInt64Builder(memory.DefaultAllocator)
	n := 3 * batchBytes / 12 // about three batches of (int32 index + int64)
	for i := 0; i < n; i++ {
		idx.Append(int32(i % 3))
		if i%11 == 0 {
			vals.AppendNull()
		} else {
			vals.Append(int64(i))
		}
	}
	dictVals := array.NewStringBuilder(memory.DefaultAllocator)
	dictVals.AppendValues([]string{"a", "b", "c"}, nil)
	dict := dictVals.NewArray()
	indices := idx.NewArray()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	d := array.NewDictionaryArray(dt, indices, dict)
	v := vals.NewArray()
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt}, {Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil),
		[]arrow.Array{d, v}, int64(n))
	defer rec.Release()
	if batchRows(rec) >= int64(n) {
		t.Fatalf("the record goes in one batch of %d rows", batchRows(rec))
	}
	out := roundTrip(t, rec).(arrow.Record)
	defer out.Release()
	if !array.RecordEqual(rec, out) {
		t.Fatal("the record differs after a round trip in batches")
	}
}

// TestNullColumnRoundTrip moves a column of the null type, which holds no
// buffer (an aggregation's counts of one a row), between processes.
func TestNullColumnRoundTrip(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "n", Type: arrow.Null, Nullable: true},
	}, nil)
	k := array.NewInt64Builder(memory.DefaultAllocator)
	k.AppendValues([]int64{4, 5, 6}, nil)
	cols := []arrow.Array{k.NewArray(), array.NewNull(3)}
	k.Release()
	rec := array.NewRecord(schema, cols, 3)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	out := roundTrip(t, rec).(arrow.Record)
	defer out.Release()
	if !array.RecordEqual(rec, out) || out.Column(1).Len() != 3 {
		t.Fatal("the record differs after a round trip")
	}
}

// TestEveryTypeRoundTrip sends a record holding a column of every example
// type of kernel's logical type table, with nulls, through the Arrow codec
// (what moves between workers and into spill) and compares each value.
func TestEveryTypeRoundTrip(t *testing.T) {
	const rows = 50
	seeds, valid := make([]int, rows), make([]bool, rows)
	for i := range seeds {
		seeds[i], valid[i] = i%(typetest.MaxSeed+1), i%9 != 2
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for _, l := range kernel.Logicals() {
		for _, typ := range l.Examples {
			fields = append(fields, arrow.Field{Name: typ.String(), Type: typ, Nullable: true})
			cols = append(cols, typetest.Column(typ, seeds, valid))
		}
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, rows)
	defer rec.Release()
	back := roundTrip(t, rec).(arrow.Record)
	defer back.Release()
	for c := range cols {
		if !arrow.TypeEqual(back.Column(c).DataType(), cols[c].DataType()) {
			t.Errorf("%s read back as %s", fields[c].Name, back.Column(c).DataType())
			continue
		}
		for r := 0; r < rows; r++ {
			if g, w := typetest.Text(back.Column(c), r), typetest.Text(cols[c], r); g != w {
				t.Errorf("%s row %d: %s, want %s", fields[c].Name, r, g, w)
				break
			}
		}
	}
}
