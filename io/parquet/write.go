package parquet

import (
	"fmt"
	"io"
	"reflect"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/gzip"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding"
)

// WriteOptions say how to write a file. The zero value writes zstd row
// groups of 1<<20 rows.
type WriteOptions struct {
	// Compression is "zstd" (the default), "snappy", "gzip" or "none".
	Compression string
	// RowGroupRows is the rows per row group (default 1<<20): the unit that
	// readers split files into partitions by. Records are cut or joined to
	// fill row groups.
	RowGroupRows int64
}

// DefaultRowGroupRows is the row group size when WriteOptions leave it out.
const DefaultRowGroupRows = 1 << 20

// The codecs keep pools of encoders: one of each serves every file.
var codecs = map[string]compress.Codec{
	"":       zstdCodec,
	"zstd":   zstdCodec,
	"snappy": &snappy.Codec{},
	"gzip":   &gzip.Codec{},
	"none":   &uncompressed.Codec{},
}

var zstdCodec = &zstd.Codec{Level: zstd.SpeedFastest}

// dictSample is how many rows of a plain string column Write looks at to
// decide on dictionary encoding.
const dictSample = 1 << 16

// Write writes records of the given schema to w as one Parquet file. Every
// column is optional. String columns use dictionary encoding when they are
// dictionary columns or have few distinct values (at most one in two rows
// of a sample); a dictionary past 16 MiB in a row group gives way to plain
// pages for the rest of it. Row groups carry min/max statistics, and pages
// theirs in the page index.
func Write(w io.Writer, schema *arrow.Schema, recs []arrow.Record, opts WriteOptions) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("write parquet: parquet-go panicked: %v", p)
		}
	}()
	codec, ok := codecs[opts.Compression]
	if !ok {
		return fmt.Errorf("write parquet: unknown compression %q (want zstd, snappy, gzip or none)", opts.Compression)
	}
	groupRows := opts.RowGroupRows
	if groupRows <= 0 {
		groupRows = DefaultRowGroupRows
	}
	if schema.NumFields() == 0 {
		return fmt.Errorf("write parquet: a file needs at least one column")
	}
	for _, rec := range recs {
		if err := sameSchema(schema, rec.Schema()); err != nil {
			return fmt.Errorf("write parquet: %w", err)
		}
	}
	fields := make(group, schema.NumFields())
	seen := map[string]bool{}
	for i, f := range schema.Fields() {
		if seen[f.Name] {
			return fmt.Errorf("write parquet: two columns named %s", f.Name)
		}
		seen[f.Name] = true
		var leaf parquet.Node
		switch {
		case arrow.TypeEqual(f.Type, kernel.Int64):
			leaf = parquet.Leaf(parquet.Int64Type)
		case arrow.TypeEqual(f.Type, kernel.Float64):
			leaf = parquet.Leaf(parquet.DoubleType)
		case arrow.TypeEqual(f.Type, kernel.Bool):
			leaf = parquet.Leaf(parquet.BooleanType)
		case kernel.IsString(f.Type):
			leaf = parquet.String()
			if fewDistinct(recs, i) {
				leaf = parquet.Encoded(leaf, &parquet.RLEDictionary)
			}
		default:
			return fmt.Errorf("write parquet: column %s: type %s is not supported (Dusk writes int64, float64, bool and string columns)", f.Name, f.Type)
		}
		fields[i] = field{Node: parquet.Optional(leaf), name: f.Name}
	}

	pw := parquet.NewWriter(w, parquet.NewSchema("schema", fields), parquet.Compression(codec),
		parquet.DataPageStatistics(false), parquet.DictionaryMaxBytes(16<<20))
	columns := pw.ColumnWriters()
	vals := make([]parquet.Value, valueBatch)
	inGroup := int64(0)
	for _, rec := range recs {
		rows := rec.NumRows()
		for start := int64(0); start < rows; {
			take := min(rows-start, groupRows-inGroup)
			for c, col := range columns {
				if err := writeColumn(col, c, rec.Column(c), int(start), int(start+take), vals); err != nil {
					return fmt.Errorf("write parquet: column %s: %w", schema.Field(c).Name, err)
				}
			}
			start += take
			if inGroup += take; inGroup == groupRows {
				if err := pw.Flush(); err != nil {
					return fmt.Errorf("write parquet: row group: %w", err)
				}
				inGroup = 0
			}
		}
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("write parquet: %w", err)
	}
	return nil
}

// sameSchema checks that a record has the columns of schema.
func sameSchema(schema, got *arrow.Schema) error {
	if got.NumFields() != schema.NumFields() {
		return fmt.Errorf("a record has %d columns, the schema %d", got.NumFields(), schema.NumFields())
	}
	for i, f := range schema.Fields() {
		g := got.Field(i)
		if g.Name != f.Name || !kernel.SameType(g.Type, f.Type) {
			return fmt.Errorf("a record's column %d is %s %s, the schema's %s %s", i, g.Name, kernel.TypeName(g.Type), f.Name, kernel.TypeName(f.Type))
		}
	}
	return nil
}

// fewDistinct reports whether string column i of recs is worth a
// dictionary: it is one already, or a sample of its first rows has at most
// one distinct value in two rows.
func fewDistinct(recs []arrow.Record, i int) bool {
	distinct := map[string]struct{}{}
	rows := 0
	for _, rec := range recs {
		col := rec.Column(i)
		if _, ok := col.(*array.Dictionary); ok {
			return true
		}
		s := kernel.StringsOf(col)
		valid, off := kernel.Validity(col)
		for r := 0; r < col.Len() && rows < dictSample; r++ {
			if kernel.IsValid(valid, off, r) {
				distinct[s.Value(r)] = struct{}{}
			}
			rows++
		}
		if rows >= dictSample {
			break
		}
	}
	return 2*len(distinct) <= rows
}

// valueBatch is how many values Write hands a column writer at once.
const valueBatch = 1024

// writeColumn writes rows [start, end) of a to column c, in batches of
// len(vals) values.
func writeColumn(w *parquet.ColumnWriter, c int, a arrow.Array, start, end int, vals []parquet.Value) error {
	valid, off := kernel.Validity(a)
	var strs kernel.Strings
	var dictOffs []int32
	var dictData []byte
	if kernel.IsString(a.DataType()) {
		if strs = kernel.StringsOf(a); strs.Dict != nil {
			dictOffs, dictData = stringParts(strs.Dict)
		}
	}
	for lo := start; lo < end; lo += len(vals) {
		hi := min(end, lo+len(vals))
		batch := vals[:hi-lo]
		switch a := a.(type) {
		case *array.Int64:
			for i, x := range a.Int64Values()[lo:hi] {
				batch[i] = parquet.Int64Value(x)
			}
		case *array.Float64:
			for i, x := range a.Float64Values()[lo:hi] {
				batch[i] = parquet.DoubleValue(x)
			}
		case *array.Boolean:
			for i := range batch {
				batch[i] = parquet.BooleanValue(a.Value(lo + i))
			}
		default:
			if strs.Indices != nil {
				// Null rows may hold any index: keep within the dictionary.
				n := int32(len(dictOffs) - 1)
				for i, j := range strs.Indices[lo:hi] {
					if uint32(j) >= uint32(n) {
						batch[i] = parquet.ByteArrayValue(nil)
						continue
					}
					batch[i] = parquet.ByteArrayValue(dictData[dictOffs[j]:dictOffs[j+1]])
				}
			} else {
				offs := strs.Offsets[lo : hi+1]
				for i := range batch {
					batch[i] = parquet.ByteArrayValue(strs.Data[offs[i]:offs[i+1]])
				}
			}
		}
		for i := range batch {
			v := &batch[i]
			if valid != nil && !kernel.IsValid(valid, off, lo+i) {
				*v = parquet.NullValue()
				v.SetDefinitionLevel(0)
			} else {
				v.SetDefinitionLevel(1)
			}
			v.SetColumnIndex(c)
		}
		if _, err := w.WriteRowValues(batch); err != nil {
			return err
		}
	}
	return nil
}

// stringParts returns a string array's offsets (n+1) and the data they index.
func stringParts(a *array.String) ([]int32, []byte) {
	var data []byte
	if b := a.Data().Buffers()[2]; b != nil {
		data = b.Bytes()
	}
	return a.ValueOffsets(), data
}

// group is a group node whose fields keep their order (parquet.Group sorts
// them by name).
type group []parquet.Field

func (g group) ID() int                           { return 0 }
func (g group) String() string                    { return "group" }
func (g group) Type() parquet.Type                { return parquet.Group{}.Type() }
func (g group) Optional() bool                    { return false }
func (g group) Repeated() bool                    { return false }
func (g group) Required() bool                    { return true }
func (g group) Leaf() bool                        { return false }
func (g group) Fields() []parquet.Field           { return g }
func (g group) Encoding() encoding.Encoding       { return nil }
func (g group) Compression() compress.Codec       { return nil }
func (g group) GoType() reflect.Type              { return reflect.TypeFor[map[string]any]() }
func (f field) Name() string                      { return f.name }
func (f field) Value(reflect.Value) reflect.Value { return reflect.Value{} }

// field is a named node of a group.
type field struct {
	parquet.Node
	name string
}
