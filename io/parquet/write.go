package parquet

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/gzip"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/duskdata/dusk/internal/kernel"
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

// dictSample is how many rows of a plain string or a number column Write
// looks at to decide on dictionary encoding.
const dictSample = 1 << 16

// Write writes records of the given schema to w as one Parquet file. Every
// column is optional. String columns use dictionary encoding when they are
// dictionary columns or have few distinct values (at most one in two rows
// of a sample), numbers and dates when they have at most one in eight (a
// quantity, a discount, a date: an index of a few bits a row, where plain
// pages hold 4 or 8 bytes a row for the reader to decompress, as pyarrow,
// Spark and DuckDB encode them); a dictionary past 16 MiB in a row group
// gives way to plain pages for the rest of it. The file keeps the Arrow
// schema (ARROW:schema, as pyarrow writes it), so that durations and time
// zones read back as they were. Row groups carry min/max
// statistics, and pages theirs in the page index.
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
	arrowSchema, err := encodeArrowSchema(schema)
	if err != nil {
		return fmt.Errorf("write parquet: %w", err)
	}
	fields := make(group, schema.NumFields())
	wopts := []parquet.WriterOption{parquet.Compression(codec), parquet.DataPageStatistics(false),
		parquet.DictionaryMaxBytes(16 << 20), parquet.KeyValueMetadata(floatBoundsKey, floatBoundsExact),
		parquet.KeyValueMetadata(arrowSchemaKey, arrowSchema)}
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
			if leaf = leafOf(f.Type); leaf == nil {
				return fmt.Errorf("write parquet: column %s: type %s is not supported", f.Name, f.Type)
			}
		}
		if holdsNaN(recs, i) {
			// parquet-go's vectorized bounds of floats with a NaN among
			// them can miss the minimum (-0.125 for a chunk holding -Inf),
			// and a reader skipping by them loses rows: no bounds rather.
			wopts = append(wopts, parquet.SkipPageBounds(f.Name))
		}
		if !kernel.IsString(f.Type) && fewNumbers(recs, i) {
			leaf = parquet.Encoded(leaf, &parquet.RLEDictionary)
		}
		fields[i] = field{Node: parquet.Optional(leaf), name: f.Name}
	}

	pw := parquet.NewWriter(w, append(wopts, parquet.NewSchema("schema", fields))...)
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

// floatBoundsKey, in a file's key-value metadata, says that its float
// columns' bounds are right: Dusk wrote none for a column holding a NaN.
const floatBoundsKey, floatBoundsExact = "dusk.float_bounds", "exact"

// holdsNaN reports whether float column i of recs holds a NaN.
func holdsNaN(recs []arrow.Record, i int) bool {
	for _, rec := range recs {
		switch a := rec.Column(i).(type) {
		case *array.Float64:
			if slices.ContainsFunc(a.Float64Values(), math.IsNaN) {
				return true
			}
		case *array.Float32:
			if slices.ContainsFunc(a.Float32Values(), func(v float32) bool { return v != v }) {
				return true
			}
		}
	}
	return false
}

// fewDistinct reports whether string column i of recs is worth a
// dictionary: it is one already, or a sample of its first rows has at most
// one distinct value in two rows.
func fewDistinct(recs []arrow.Record, i int) bool {
	for _, rec := range recs {
		if _, ok := rec.Column(i).(*array.Dictionary); ok {
			return true
		}
	}
	distinct, rows := sampleDistinct(recs, i, func(col arrow.Array) func(int) string { return kernel.StringsOf(col).Value })
	return 2*distinct <= rows
}

// fewNumbers reports whether fixed-width column i of recs is worth a
// dictionary: a sample of its first rows has at most one distinct value in
// eight. Booleans and 16-byte decimals are left plain.
func fewNumbers(recs []arrow.Record, i int) bool {
	if len(recs) == 0 {
		return false
	}
	switch kernel.ByteWidth(recs[0].Schema().Field(i).Type) {
	case 1:
		return fewFixed[uint8](recs, i)
	case 2:
		return fewFixed[uint16](recs, i)
	case 4:
		return fewFixed[uint32](recs, i)
	case 8:
		return fewFixed[uint64](recs, i)
	}
	return false
}

func fewFixed[T comparable](recs []arrow.Record, i int) bool {
	distinct, rows := sampleDistinct(recs, i, func(col arrow.Array) func(int) T {
		vals := kernel.FixedValues[T](col)
		return func(r int) T { return vals[r] }
	})
	return rows > 0 && 8*distinct <= rows
}

// sampleDistinct counts the distinct values among the first dictSample
// rows of column i of recs (nulls looked at, not counted), and the rows
// looked at; value gives a column's value at a row.
func sampleDistinct[K comparable](recs []arrow.Record, i int, value func(arrow.Array) func(int) K) (distinct, rows int) {
	seen := map[K]struct{}{}
	for _, rec := range recs {
		col := rec.Column(i)
		at := value(col)
		valid, off := kernel.Validity(col)
		for r := 0; r < col.Len() && rows < dictSample; r++ {
			if kernel.IsValid(valid, off, r) {
				seen[at(r)] = struct{}{}
			}
			rows++
		}
		if rows >= dictSample {
			break
		}
	}
	return len(seen), rows
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
		case *array.String, *array.Dictionary:
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
		case *array.Null: // every row null (Validity)
		default:
			valueOf := parquetValues(a)
			for i := range batch {
				batch[i] = valueOf(lo + i)
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
