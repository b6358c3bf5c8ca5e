// Package parquet converts between Parquet files and Arrow records, on top of
// github.com/parquet-go/parquet-go. Reading decodes pages straight into the
// Go slices that become Arrow buffers, one column at a time; writing turns
// Arrow buffers into parquet-go column values in batches.
//
// Type mapping on read (each column keeps the type it was written with):
//
//	INT32, INT64 (and INT(8|16|32|64, signed or not))  int8 ... int64, uint8 ... uint64
//	DATE                                               date32
//	TIMESTAMP(unit), TIMESTAMP_MILLIS/MICROS           timestamp[unit] (tz=UTC where adjusted to UTC)
//	INT96 (as Spark and Impala write timestamps)       timestamp[ns]
//	DECIMAL(p, s) in INT32, INT64 or FIXED_LEN_BYTE_ARRAY  decimal128(p, s)
//	FLOAT, DOUBLE                                      float32, float64
//	BOOLEAN                                            bool
//	BYTE_ARRAY (plain, STRING, ENUM, JSON)             string
//
// TIME columns read as their raw int64 (the column's unit since midnight),
// and a column of the NULL logical type as int64 nulls. Where the file
// keeps its Arrow schema (ARROW:schema, as Arrow's writers and Write do),
// an INT64 column it names a duration reads as that duration, and a
// UTC-adjusted timestamp it gives a zone reads in that zone. Other
// FIXED_LEN_BYTE_ARRAY and BYTE_ARRAY logical types, nested and repeated
// columns are not supported: Inspect fails on them, naming the column and
// its type, and Read when they are asked for.
//
// A string column comes out dictionary-encoded (kernel.Dict) when the
// file's metadata says that every data page of it, in every row group, uses
// the dictionary, and plain (kernel.String) otherwise, so that all reads of
// a file agree with Inspect's schema; the dictionaries of several row groups
// merge into one.
//
// Read decodes on the calling goroutine, one column after another (Dusk runs
// a task per core); Inspect and Read may run concurrently on one file.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, the collections.
package parquet

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/io/files"
)

// FileInfo is what a file's footer says about it.
type FileInfo struct {
	Schema    *arrow.Schema // Dusk types; every field nullable
	RowGroups []RowGroup
	NumRows   int64
}

// RowGroup is one row group of a file.
type RowGroup struct {
	Rows    int64
	Bytes   int64               // uncompressed size of the group's column data
	Columns []files.ColumnStats // in schema order
}

// Inspect reads a file's footer: its Arrow schema (Dusk types) and its row
// groups with their statistics. It fails on a column Dusk cannot read.
func Inspect(r io.ReaderAt, size int64, path string) (*FileInfo, error) {
	f, err := open(r, size, path)
	if err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, len(f.cols))
	for i, c := range f.cols {
		if c.err != nil {
			return nil, fmt.Errorf("read %s: %w", path, c.err)
		}
		fields[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: true}
	}
	meta := f.file.Metadata()
	floats := floatBoundsRight(meta)
	info := &FileInfo{Schema: arrow.NewSchema(fields, nil), NumRows: meta.NumRows}
	info.RowGroups = make([]RowGroup, len(meta.RowGroups))
	for g := range meta.RowGroups {
		rg := &meta.RowGroups[g]
		stats := make([]files.ColumnStats, len(f.cols))
		for i := range f.cols {
			cc := &rg.Columns[f.cols[i].leaf]
			stats[i] = f.cols[i].stats(&cc.MetaData.Statistics, floats)
			stats[i].Paged = cc.ColumnIndexOffset != 0 && cc.OffsetIndexOffset != 0
			stats[i].Compressed = cc.MetaData.TotalCompressedSize
		}
		info.RowGroups[g] = RowGroup{Rows: rg.NumRows, Bytes: rg.TotalByteSize, Columns: stats}
	}
	return info, nil
}

// file is an opened file and its top-level columns.
type file struct {
	path string
	file *parquet.File
	cols []column
}

// column is a top-level column of a file and how it maps to a Dusk column.
type column struct {
	name     string
	leaf     int          // its column chunk's index in a row group
	kind     parquet.Kind // physical type
	unsigned bool         // an int column holding unsigned values
	optional bool
	typ      arrow.DataType // the Dusk type it reads as
	err      error          // why Dusk cannot read it, or nil
}

// open reads the footer of the file and maps its columns.
func open(r io.ReaderAt, size int64, path string) (f *file, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("read %s: footer: parquet-go panicked: %v", path, p)
		}
	}()
	if err := checkFooter(r, size); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	pf, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("read %s: footer: %w", path, err)
	}
	meta := pf.Metadata()
	cols, leaves, err := columnsOf(meta.Schema)
	if err != nil {
		return nil, fmt.Errorf("read %s: schema: %w", path, err)
	}
	refineTypes(cols, arrowSchemaOf(meta))
	for g := range meta.RowGroups {
		rg := &meta.RowGroups[g]
		if len(rg.Columns) != leaves {
			return nil, fmt.Errorf("read %s: row group %d has %d column chunks, the schema %d", path, g, len(rg.Columns), leaves)
		}
		if rg.NumRows < 0 || rg.NumRows > math.MaxInt32 {
			return nil, fmt.Errorf("read %s: row group %d claims %d rows", path, g, rg.NumRows)
		}
	}
	for i := range cols {
		c := &cols[i]
		if c.err != nil || c.kind != parquet.ByteArray {
			continue
		}
		c.typ = kernel.String
		if len(meta.RowGroups) > 0 {
			c.typ = kernel.Dict
		}
		for g := range meta.RowGroups {
			if !dictionaryEncoded(&meta.RowGroups[g].Columns[c.leaf].MetaData) {
				c.typ = kernel.String
				break
			}
		}
	}
	return &file{path: path, file: pf, cols: cols}, nil
}

// columnsOf maps the top-level fields of a schema (elements in depth-first
// order, the root first) to columns, and counts the schema's leaves.
func columnsOf(elems []format.SchemaElement) ([]column, int, error) {
	if len(elems) == 0 {
		return nil, 0, fmt.Errorf("no root element")
	}
	var cols []column
	i, leaves := 1, 0
	for range elems[0].NumChildren.V {
		if i >= len(elems) {
			return nil, 0, fmt.Errorf("the root's children run past the %d elements", len(elems))
		}
		e := &elems[i]
		if !e.Type.Valid || e.NumChildren.V > 0 {
			next, n, err := skipGroup(elems, i)
			if err != nil {
				return nil, 0, err
			}
			cols = append(cols, column{name: e.Name, leaf: leaves, err: fmt.Errorf("column %s: nested (group) columns are not supported (Dusk reads int, float, bool and string columns)", e.Name)})
			i, leaves = next, leaves+n
			continue
		}
		cols = append(cols, columnOf(e, leaves))
		i, leaves = i+1, leaves+1
	}
	return cols, leaves, nil
}

// skipGroup returns the element after the group at i, and its leaves.
func skipGroup(elems []format.SchemaElement, i int) (next, leaves int, err error) {
	if i >= len(elems) {
		return 0, 0, fmt.Errorf("a group's children run past the %d elements", len(elems))
	}
	e := &elems[i]
	if e.Type.Valid && e.NumChildren.V == 0 {
		return i + 1, 1, nil
	}
	next = i + 1
	for range e.NumChildren.V {
		var n int
		if next, n, err = skipGroup(elems, next); err != nil {
			return 0, 0, err
		}
		leaves += n
	}
	return next, leaves, nil
}

// typeName describes an element's type for errors: "INT32 DECIMAL(9,2)".
func typeName(e *format.SchemaElement) string {
	s := e.Type.V.String()
	if e.Type.V == format.FixedLenByteArray {
		s = fmt.Sprintf("%s(%d)", s, e.TypeLength.V)
	}
	if e.RepetitionType.Valid && e.RepetitionType.V == format.Repeated {
		s = "repeated " + s
	}
	if l := e.LogicalType.Value; l != nil {
		return s + " " + l.String()
	}
	if e.ConvertedType.Valid {
		if e.ConvertedType.V == deprecated.Decimal {
			return fmt.Sprintf("%s DECIMAL(%d,%d)", s, e.Precision.V, e.Scale.V)
		}
		if int(e.ConvertedType.V) < len(convertedNames) {
			return s + " " + convertedNames[e.ConvertedType.V]
		}
		return fmt.Sprintf("%s converted type %d", s, e.ConvertedType.V)
	}
	return s
}

// convertedNames name the deprecated converted types, by value.
var convertedNames = [...]string{"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE",
	"TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16",
	"UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"}

// dictionaryEncoded reports whether every data page of a column chunk uses
// its dictionary, as far as the metadata says: by the page encoding stats,
// or, in files without them, by the chunk's encodings.
func dictionaryEncoded(m *format.ColumnMetaData) bool {
	isDict := func(e format.Encoding) bool {
		//lint:ignore SA1019 files of format v1 mark dictionary pages so
		return e == format.RLEDictionary || e == format.PlainDictionary
	}
	if len(m.EncodingStats) > 0 {
		data := false
		for _, s := range m.EncodingStats {
			if s.PageType != format.DataPage && s.PageType != format.DataPageV2 || s.Count == 0 {
				continue
			}
			if !isDict(s.Encoding) {
				return false
			}
			data = true
		}
		return data
	}
	dict := false
	for _, e := range m.Encoding {
		switch {
		case isDict(e):
			dict = true
		case e != format.RLE && e != format.BitPacked:
			return false // plain (or delta) data pages, or a plain dictionary page: not sure
		}
	}
	return dict
}

// floatBoundsRight reports whether a file's float bounds can be trusted:
// parquet-go's vectorized bounds of floats with a NaN among them can miss
// the minimum, so those of a file it wrote count only where Dusk wrote it
// and left out the bounds of the columns that hold a NaN.
func floatBoundsRight(meta *format.FileMetaData) bool {
	if !strings.Contains(meta.CreatedBy, "parquet-go") {
		return true
	}
	for _, kv := range meta.KeyValueMetadata {
		if kv.Key == floatBoundsKey && kv.Value == floatBoundsExact {
			return true
		}
	}
	return false
}

// stats reads a column chunk's statistics; floats: whether the file's
// float bounds can be trusted.
func (c *column) stats(st *format.Statistics, floats bool) files.ColumnStats {
	s := files.ColumnStats{Nulls: st.NullCount}
	lo, hi := st.MinValue, st.MaxValue
	if (lo == nil || hi == nil) && c.kind != parquet.ByteArray && !c.unsigned {
		// The deprecated fields are in signed order: right for these.
		lo, hi = st.Min, st.Max
	}
	if lo == nil || hi == nil {
		return s
	}
	switch c.kind {
	case parquet.Boolean:
		if len(lo) == 1 && len(hi) == 1 {
			s.MinBool, s.MaxBool, s.HasMinMax = lo[0]&1 != 0, hi[0]&1 != 0, true
		}
	case parquet.Int32:
		if len(lo) == 4 && len(hi) == 4 {
			a, b := int32(binary.LittleEndian.Uint32(lo)), int32(binary.LittleEndian.Uint32(hi))
			if c.unsigned {
				s.MinInt, s.MaxInt = int64(uint32(a)), int64(uint32(b))
			} else {
				s.MinInt, s.MaxInt = int64(a), int64(b)
			}
			s.HasMinMax = true
		}
	case parquet.Int64:
		if len(lo) == 8 && len(hi) == 8 {
			s.MinInt, s.MaxInt = int64(binary.LittleEndian.Uint64(lo)), int64(binary.LittleEndian.Uint64(hi))
			// Unsigned values above MaxInt64 wrap when read: their bounds
			// say nothing in int64 order.
			s.HasMinMax = !c.unsigned || s.MaxInt >= 0
		}
	case parquet.Float:
		if floats && len(lo) == 4 && len(hi) == 4 {
			s.MinFloat = float64(math.Float32frombits(binary.LittleEndian.Uint32(lo)))
			s.MaxFloat = float64(math.Float32frombits(binary.LittleEndian.Uint32(hi)))
			s.HasMinMax = !math.IsNaN(s.MinFloat) && !math.IsNaN(s.MaxFloat)
		}
	case parquet.Double:
		if floats && len(lo) == 8 && len(hi) == 8 {
			s.MinFloat = math.Float64frombits(binary.LittleEndian.Uint64(lo))
			s.MaxFloat = math.Float64frombits(binary.LittleEndian.Uint64(hi))
			s.HasMinMax = !math.IsNaN(s.MinFloat) && !math.IsNaN(s.MaxFloat)
		}
	case parquet.ByteArray:
		s.MinString, s.MaxString, s.HasMinMax = string(lo), string(hi), true
	}
	return s
}
