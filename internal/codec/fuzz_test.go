package codec

import (
	"bytes"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/internal/memcheck"
)

// fuzzCodecs are the codecs FuzzDecode reads with, by its choice byte: what
// workers decode from their peers.
var fuzzCodecs = []Codec{Arrow, ArrowPlain, int64Codec{}, jsonValueCodec{}, JSON[map[string]float64]()}

// FuzzDecode decodes any bytes with the codecs values travel in between
// workers: an error is fine; a panic, or a record whose columns disagree
// in length, is not.
func FuzzDecode(f *testing.F) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "f", Type: arrow.PrimitiveTypes.Float64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for i := 0; i < 300; i++ {
		if i%5 == 0 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
		}
		b.Field(1).(*array.StringBuilder).Append("x")
		b.Field(2).(*array.Float64Builder).Append(float64(i) / 3)
	}
	rec := b.NewRecord()
	b.Release()
	defer rec.Release()
	for i, c := range []Codec{Arrow, ArrowPlain} {
		var buf bytes.Buffer
		if err := c.Encode(&buf, rec); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes(), uint8(i))
	}
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint8(2))
	f.Add([]byte(`{"a":1}`), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, choice uint8) {
		memcheck.Check(t, data, func() int64 {
			v, err := fuzzCodecs[int(choice)%len(fuzzCodecs)].Decode(bytes.NewReader(data))
			if err != nil {
				return 0
			}
			rec, ok := v.(arrow.Record)
			if !ok {
				return int64(len(data)) // a Go value: no bigger than its bytes' decoding
			}
			defer rec.Release()
			for i, c := range rec.Columns() {
				if int64(c.Len()) != rec.NumRows() {
					t.Fatalf("column %d has %d values in a record of %d rows", i, c.Len(), rec.NumRows())
				}
			}
			return memcheck.RecordBytes(rec)
		})
	})
}
