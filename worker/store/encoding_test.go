package store

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// TestColumnEncodings spills columns of each kind and reads them back:
// each is stored in the encoding expected and comes back equal, type,
// nulls and values, whole and sliced.
func TestColumnEncodings(t *testing.T) {
	mem := memory.DefaultAllocator
	ints := func(b array.Builder, vals ...int64) arrow.Array {
		for i, v := range vals {
			switch b := b.(type) {
			case *array.Int64Builder:
				if i%5 == 3 {
					b.AppendNull()
				} else {
					b.Append(v)
				}
			case *array.Int32Builder:
				b.Append(int32(v))
			case *array.Int16Builder:
				b.Append(int16(v))
			case *array.Uint64Builder:
				b.Append(uint64(v))
			case *array.Uint32Builder:
				b.Append(uint32(v))
			case *array.Date32Builder:
				b.Append(arrow.Date32(v))
			case *array.Int8Builder:
				b.Append(int8(v))
			}
		}
		return b.NewArray()
	}
	strs := func(b array.Builder, vals ...string) arrow.Array {
		for i, v := range vals {
			switch b := b.(type) {
			case *array.StringBuilder:
				if i%7 == 5 {
					b.AppendNull()
				} else {
					b.Append(v)
				}
			case *array.BinaryBuilder:
				b.Append([]byte(v))
			}
		}
		return b.NewArray()
	}
	seq := func(n int, f func(i int) int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	names := func(n int, f func(i int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	dict := func(idxType arrow.DataType, n, k int) arrow.Array {
		b := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: idxType, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
		defer b.Release()
		for i := range n {
			if i%11 == 4 {
				b.AppendNull()
			} else if err := b.AppendString(fmt.Sprintf("v%d", i*31%k)); err != nil {
				t.Fatal(err)
			}
		}
		return b.NewArray()
	}
	for _, tt := range []struct {
		name string
		col  arrow.Array
		want encoding
		as   arrow.Type // the stored column's type (its indices' for a dictionary)
	}{
		{"dictionary of 100", dict(arrow.PrimitiveTypes.Int32, 3000, 100), narrowed, arrow.UINT8},
		{"dictionary of 1000, int64 indices", dict(arrow.PrimitiveTypes.Int64, 3000, 1000), narrowed, arrow.UINT16},
		{"dictionary, uint8 indices", dict(arrow.PrimitiveTypes.Uint8, 3000, 100), plain, arrow.UINT8},
		{"int64 small, nulls", ints(array.NewInt64Builder(mem), seq(3000, func(i int) int64 { return int64(i%5) + 1 })...), narrowed, arrow.UINT8},
		{"int64 negative", ints(array.NewInt64Builder(mem), seq(3000, func(i int) int64 { return -1000 + int64(i%900) })...), narrowed, arrow.UINT16},
		{"int64 across zero to 2^32", ints(array.NewInt64Builder(mem), seq(3000, func(i int) int64 { return int64(i%3)*math.MaxUint32/2 - 7 })...), narrowed, arrow.UINT32},
		{"int64 full range", ints(array.NewInt64Builder(mem), seq(3000, func(i int) int64 { return []int64{math.MinInt64, math.MaxInt64, 0}[i%3] })...), plain, arrow.INT64},
		{"int32 extremes", ints(array.NewInt32Builder(mem), seq(3000, func(i int) int64 { return []int64{math.MinInt32, math.MinInt32 + 200}[i%2] })...), narrowed, arrow.UINT8},
		{"int16", ints(array.NewInt16Builder(mem), seq(3000, func(i int) int64 { return int64(i%256) - 128 })...), narrowed, arrow.UINT8},
		{"int8 stays", ints(array.NewInt8Builder(mem), seq(3000, func(i int) int64 { return int64(i % 3) })...), plain, arrow.INT8},
		{"uint64 high", ints(array.NewUint64Builder(mem), seq(3000, func(i int) int64 { return -1 - int64(i*37%70000) })...), narrowed, arrow.UINT32},
		{"uint32", ints(array.NewUint32Builder(mem), seq(3000, func(i int) int64 { return 4_000_000_000 + int64(i%60000) })...), narrowed, arrow.UINT16},
		{"date32", ints(array.NewDate32Builder(mem), seq(3000, func(i int) int64 { return 8000 + int64(i%2500) })...), narrowed, arrow.UINT16},
		{"ids, nulls", strs(array.NewStringBuilder(mem), names(5000, func(i int) string { return fmt.Sprintf("id%03d", i*7%100) })...), dictionary, arrow.UINT8},
		{"words of any length", strs(array.NewStringBuilder(mem), names(5000, func(i int) string { return strings.Repeat("ab", i%13) })...), dictionary, arrow.UINT8},
		{"long strings", strs(array.NewStringBuilder(mem), names(5000, func(i int) string { return strings.Repeat("long ", 5+i%30) })...), dictionary, arrow.UINT8},
		{"1000 values", strs(array.NewStringBuilder(mem), names(20000, func(i int) string { return fmt.Sprint(i * 7919 % 1000) })...), dictionary, arrow.UINT16},
		{"binary", strs(array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary), names(5000, func(i int) string { return string([]byte{0, byte(i % 10), 0xff}) })...), dictionary, arrow.UINT8},
		{"all distinct", strs(array.NewStringBuilder(mem), names(9000, func(i int) string { return fmt.Sprintf("id%010d", i) })...), plain, arrow.STRING},
		{"distinct after a run", strs(array.NewStringBuilder(mem), names(9000, func(i int) string { return fmt.Sprintf("id%010d", max(i-100, 0)) })...), plain, arrow.STRING},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer tt.col.Release()
			enc, code := encodeColumn(tt.col)
			e := code.enc
			stored := enc.DataType().ID()
			if d, ok := enc.DataType().(*arrow.DictionaryType); ok {
				stored = d.IndexType.ID()
			}
			enc.Release()
			if e != tt.want || stored != tt.as {
				t.Fatalf("encoded %s as %s, want %s as %s", encodings[e].name, arrow.Type(stored), encodings[tt.want].name, tt.as)
			}
			for _, cut := range [][2]int64{{0, int64(tt.col.Len())}, {3, int64(tt.col.Len()) - 2}} {
				col := array.NewSlice(tt.col, cut[0], cut[1])
				rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "c", Type: col.DataType(), Nullable: true}}, nil), []arrow.Array{col}, int64(col.Len()))
				col.Release()
				p := filepath.Join(t.TempDir(), "c.spill")
				if _, err := writeSpill(p, rec, S2); err != nil {
					t.Fatal(err)
				}
				v, _, err := readSpill(p, nil)
				if err != nil {
					t.Fatal(err)
				}
				got := v.(arrow.Record)
				if !got.Schema().Equal(rec.Schema()) || !array.Equal(got.Column(0), rec.Column(0)) {
					t.Fatalf("rows %v: read back %v, want %v", cut, got, rec)
				}
				got.Release()
				rec.Release()
			}
		})
	}
}

// TestDamagedEncodings decodes encoded columns that disagree with their
// footer or hold indices beyond their dictionary: each is an error.
func TestDamagedEncodings(t *testing.T) {
	mem := memory.DefaultAllocator
	ib := array.NewUint8Builder(mem)
	ib.AppendValues([]uint8{0, 1, 2, 1}, nil)
	idx := ib.NewArray()
	defer idx.Release()
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"a", "b"}, nil)
	vals := sb.NewArray()
	defer vals.Release()
	dict := array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint8, ValueType: arrow.BinaryTypes.String}, idx, vals)
	defer dict.Release()
	for _, tt := range []struct {
		name string
		col  arrow.Array
		e    encoding
		typ  arrow.Type
		want string
	}{
		{"index beyond the dictionary", dict, dictionary, arrow.STRING, "index 2 in a dictionary of 2"},
		{"a dictionary of another type", dict, dictionary, arrow.BINARY, "stored as"},
		{"not a dictionary", idx, dictionary, arrow.STRING, "stored as"},
		{"narrowed to no less", idx, narrowed, arrow.INT8, "stored as"},
		{"a type no encoding has", idx, narrowed, arrow.FLOAT64, "encoding 1 of type"},
		{"an unknown encoding", idx, 9, arrow.INT64, "encoding 9"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := decodeColumn(tt.col, columnCode{tt.e, tt.typ, 0})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				if out != nil {
					out.Release()
				}
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
		})
	}
}
