package avro

import (
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
	"github.com/klauspost/compress/zstd"

	"github.com/duskdata/dusk/internal/kernel"
)

// WriteOptions say how to write a file. The zero value writes zstd blocks
// of about 1 MiB of records named "Row", with the first record's schema.
type WriteOptions struct {
	// Compression is "zstd" (the default; Avro's "zstandard" codec),
	// "deflate", "snappy" or "none"; zstd and deflate at their fastest
	// levels. Every Avro reader has deflate; zstd needs Avro 1.9 or later
	// (Java), or fastavro with zstandard installed.
	Compression string
	// BlockSize is the uncompressed bytes of records per block (default
	// 1 MiB): the unit of compression, and the one readers split files by.
	BlockSize int
	// Name is the Avro record's name (default "Row").
	Name string
	// Schema is the columns written; nil takes the first record's. It is
	// needed only when recs is empty.
	Schema *arrow.Schema `json:"-"`
}

// DefaultBlockSize is the block size when WriteOptions leave it out.
const DefaultBlockSize = 1 << 20

var codecNames = map[string]ocf.CodecName{
	"": ocf.ZStandard, "zstd": ocf.ZStandard, "zstandard": ocf.ZStandard,
	"deflate": ocf.Deflate, "snappy": ocf.Snappy, "none": ocf.Null, "null": ocf.Null,
}

// Write writes the records, which share one schema of Dusk's types, to w as
// one Avro object container file (see AvroSchema for the schema written).
// Write does not release the records.
func Write(w io.Writer, recs []arrow.Record, opts WriteOptions) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("write avro: panic: %v\n%s", p, debug.Stack())
		}
	}()
	schema := opts.Schema
	if schema == nil {
		if len(recs) == 0 {
			return errors.New("write avro: no records and no WriteOptions.Schema: nothing says what the columns are")
		}
		schema = recs[0].Schema()
	}
	for i, rec := range recs {
		if err := sameColumns(schema, rec.Schema()); err != nil {
			return fmt.Errorf("write avro: record %d: %w", i, err)
		}
	}
	codec, ok := codecNames[opts.Compression]
	if !ok {
		return fmt.Errorf("write avro: unknown compression %q (want zstd, deflate, snappy or none)", opts.Compression)
	}
	name := opts.Name
	if name == "" {
		name = "Row"
	}
	blockSize := opts.BlockSize
	if blockSize <= 0 {
		blockSize = DefaultBlockSize
	}
	as, err := AvroSchema(name, schema)
	if err != nil {
		return fmt.Errorf("write %w", err)
	}
	// The struct hides an *os.File from ocf, which would otherwise append
	// to a file that is not empty instead of writing a new one.
	encOpts := []ocf.EncoderFunc{
		ocf.WithCodec(codec), ocf.WithBlockLength(0), ocf.WithBlockSize(blockSize),
		ocf.WithSchemaMarshaler(ocf.FullSchemaMarshaler), ocf.WithEncoderSchemaCache(&avro.SchemaCache{}),
		ocf.WithZStandardEncoderOptions(zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedFastest)),
	}
	if codec == ocf.Deflate {
		encOpts = append(encOpts, ocf.WithCompressionLevel(flate.BestSpeed))
	}
	enc, err := ocf.NewEncoderWithSchema(as, struct{ io.Writer }{w}, encOpts...)
	if err != nil {
		return fmt.Errorf("write avro: %w", err)
	}
	var row []byte
	cols := make([]colEncoder, schema.NumFields())
	for _, rec := range recs {
		for c := range cols {
			cols[c] = newColEncoder(rec.Column(c))
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row = row[:0]
			for c := range cols {
				row = cols[c].append(row, i)
			}
			if _, err := enc.Write(row); err != nil {
				enc.Close()
				return fmt.Errorf("write avro: %w", err)
			}
		}
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("write avro: %w", err)
	}
	return nil
}

// sameColumns checks that a record has the schema's column names and types
// (plain and dictionary strings count as one).
func sameColumns(want, got *arrow.Schema) error {
	if want.NumFields() != got.NumFields() {
		return fmt.Errorf("%d columns, want %d", got.NumFields(), want.NumFields())
	}
	for i, f := range want.Fields() {
		g := got.Field(i)
		if g.Name != f.Name || !kernel.SameType(g.Type, f.Type) {
			return fmt.Errorf("column %d is %s %s, want %s %s", i, g.Name, kernel.TypeName(g.Type), f.Name, kernel.TypeName(f.Type))
		}
	}
	return nil
}

// colEncoder appends one column's values in Avro's encoding, each as a
// ["null", T] union (a column of the null type as null).
type colEncoder struct {
	kind     kind // kLong, kDouble, kBool, kString, kBytes (decimals) or kNull
	valid    []byte
	off      int
	ints     []int64
	floats   []float64
	bools    *array.Boolean
	strs     *kernel.Strings
	decimals []decimal128.Num
}

func (e *colEncoder) append(b []byte, i int) []byte {
	if e.kind == kNull {
		return b // the null type takes no bytes
	}
	if !kernel.IsValid(e.valid, e.off, i) {
		return append(b, 0) // branch 0: null
	}
	b = append(b, 2) // branch 1, zigzag-encoded
	switch e.kind {
	case kLong:
		return appendLong(b, e.ints[i])
	case kDouble:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(e.floats[i]))
	case kBool:
		if e.bools.Value(i) {
			return append(b, 1)
		}
		return append(b, 0)
	case kBytes: // a decimal: its unscaled value, big-endian two's complement
		v := kernel.DecimalToBigEndian(e.decimals[i])
		b = appendLong(b, int64(len(v)))
		return append(b, v...)
	}
	v := e.strs.Value(i)
	b = appendLong(b, int64(len(v)))
	return append(b, v...)
}

// appendLong appends v as a zigzag varint.
func appendLong(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}
