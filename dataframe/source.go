package dataframe

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"reflect"
	"time"

	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/io/csv"
)

// CSVOptions say how ReadCSV reads files; the zero value reads
// comma-separated files with a header and infers the column types.
type CSVOptions struct {
	// Delimiter separates fields. Default ','.
	Delimiter byte
	// Terminator, when set, is the one byte that ends a line (pandas'
	// lineterminator); by default \n, \r\n and a lone \r each do.
	Terminator byte
	// NoHeader: the first line is data; Names must be given.
	NoHeader bool
	// Names overrides the header's names.
	Names []string
	// Types fixes the types of the named columns: "int64", "float64",
	// "string", "bool", or any type Dusk takes as Arrow names it: "int32",
	// "date32", "timestamp[us]", "timestamp[ms, tz=UTC]", "decimal(15, 2)".
	// Without one, a column of ISO 8601 dates reads as date32, of dates and
	// times as timestamp[us] (tz=UTC where each has an offset).
	Types map[string]string
	// TimeLayout is the Go layout of date and timestamp columns in another
	// form than ISO 8601 ("02/01/2006 15:04"), for the columns Types names.
	TimeLayout string
	// NullValues are read as null, besides "", NA, N/A, NULL, null, NaN,
	// nan and #N/A (as pandas' na_values).
	NullValues []string
	// NoDefaultNulls reads only NullValues as null, not the defaults.
	NoDefaultNulls bool
	// BlockSize splits files larger than this many bytes into several
	// partitions. Default 64 MiB, or a tenth of the memory per thread of the
	// default client's workers where that is less (at least 4 MiB).
	BlockSize int64
	// NoDictionary keeps string columns plain instead of dictionary-encoding
	// those with few distinct values.
	NoDictionary bool
}

// DefaultBlockSize is the default partition size of ReadCSV, in bytes.
const DefaultBlockSize = 64 << 20

// autoBlockSize is the partition size of a text reader given none:
// DefaultBlockSize, or a tenth of the memory one task of the default
// client's workers may use where that is less (as Dask's read_csv sizes
// its blocks by memory per core): a block takes several times its size
// to parse, and a worker of 512 MiB running two 64 MiB blocks at once
// passed its limit.
func autoBlockSize() int64 { return sizedByMemory(DefaultBlockSize, 10) }

// sizedByMemory is def, or the memory one task of the default client's
// workers may use over share where that is less (at least minBlockSize).
func sizedByMemory(def, share int64) int64 {
	ex, err := collections.ExecutorFrom(context.Background())
	if err != nil {
		return def
	}
	m, ok := ex.(collections.Memoried)
	if !ok {
		return def
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	per, err := m.MemoryPerThread(ctx)
	if err != nil || per <= 0 {
		return def
	}
	return min(max(per/share, minBlockSize), def)
}

// minBlockSize keeps partitions from getting so small that tasks cost more
// than their work.
const minBlockSize = 4 << 20

// ReadCSV reads the CSV files that pattern names (a file, a directory, a
// glob such as "data/2014-*.csv", or their URLs; see storage.Datums for how
// the glob makes datums). A partition holds whole files or blocks of one
// datum up to the block size; a larger file is split at line boundaries,
// except a compressed one (.gz, .zst), which is read whole. Column types are
// inferred from the start of the first file unless given; hive-style
// directories (year=2024/) become columns. Nothing is read but that sample
// until the frame is computed; the files' sizes and modification times are
// part of the frame's identity, so a changed file is read again.
func ReadCSV(pattern string, opts ...CSVOptions) *Frame {
	var o CSVOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	copts := csv.Options{Delimiter: o.Delimiter, Terminator: o.Terminator, NoHeader: o.NoHeader, Names: o.Names,
		NullValues: o.NullValues, NoDefaultNulls: o.NoDefaultNulls, NoDictionary: o.NoDictionary, TimeLayout: o.TimeLayout}
	if len(o.Types) > 0 {
		copts.Types = make(map[string]csv.Type, len(o.Types))
		for k, v := range o.Types {
			copts.Types[k] = csv.Type(v)
		}
	}
	block := o.BlockSize
	if block <= 0 {
		block = autoBlockSize()
	}
	return frameOf(plan.ReadFormat("ReadCSV", "csv", pattern, copts, plan.ReadOptions{Size: block}))
}

// FromArrow makes a frame of records, one partition each; they must have the
// same columns. Integer columns become int64, float32 float64, large
// strings plain strings, and dictionary-encoded strings stay encoded
// (with int32 indices); other types are refused.
func FromArrow(recs ...arrow.Record) *Frame {
	if len(recs) == 0 {
		return failed(fmt.Errorf("FromArrow: no records: at least one is needed for the columns"))
	}
	var schema *arrow.Schema
	var total, rows int64
	args := make([][]byte, len(recs))
	for i, r := range recs {
		rows += r.NumRows()
		norm, err := normalize(r)
		if err != nil {
			return failed(fmt.Errorf("FromArrow: record %d: %w", i, err))
		}
		logical := kernel.PlainSchema(norm.Schema())
		if schema == nil {
			schema = logical
		} else if !schema.Equal(logical) {
			norm.Release()
			return failed(fmt.Errorf("FromArrow: record %d has columns %s, record 0 has %s", i, logical, schema))
		}
		args[i], err = encodeIPC(norm)
		norm.Release()
		if err != nil {
			return failed(fmt.Errorf("FromArrow: record %d: %w", i, err))
		}
		total += int64(len(args[i]))
	}
	return &Frame{plan: plan.NewSource("from-arrow", ops.OpFromIPC, args, schema, "", plan.Size{Bytes: total, Rows: rows})}
}

// normalize converts rec's columns to the types kernels handle.
func normalize(rec arrow.Record) (arrow.Record, error) {
	fields := make([]arrow.Field, rec.NumCols())
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, c := range rec.Columns() {
		col, err := normalizeColumn(c)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", rec.ColumnName(i), err)
		}
		cols[i] = col
		fields[i] = arrow.Field{Name: rec.ColumnName(i), Type: col.DataType(), Nullable: true}
	}
	return array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows()), nil
}

func normalizeColumn(c arrow.Array) (arrow.Array, error) {
	valid := func() []byte {
		if c.NullN() == 0 {
			return nil
		}
		out := make([]byte, (c.Len()+7)/8)
		for i := 0; i < c.Len(); i++ {
			if c.IsValid(i) {
				out[i>>3] |= 1 << (i & 7)
			}
		}
		return out
	}
	switch a := c.(type) {
	case *array.LargeString:
		return plainStrings(a.Len(), a.IsValid, a.Value, valid()), nil
	case *array.Dictionary:
		ok := a.Data().Dictionary().DataType().ID() == arrow.STRING
		if _, int32s := a.Indices().(*array.Int32); ok && int32s {
			c.Retain() // kernels read it as it is
			return c, nil
		}
		// Other index types: kernels read only int32 indices.
		if ok {
			dict := kernel.DictValues(a)
			at := func(i int) string { return dict.Value(a.GetValueIndex(i)) }
			return plainStrings(a.Len(), a.IsValid, at, valid()), nil
		}
	default:
		if _, err := kernel.KindOf(c.DataType()); err == nil {
			c.Retain() // a type kernels take, kept as it is
			return c, nil
		}
	}
	return nil, fmt.Errorf("unsupported type %s (Dusk takes numbers, bool, strings, date32, timestamps, durations and decimals)", c.DataType())
}

// plainStrings copies n strings, read by at where isValid, into a plain
// string column.
func plainStrings(n int, isValid func(int) bool, at func(int) string, valid []byte) arrow.Array {
	offs := make([]int32, n+1)
	var data []byte
	for i := 0; i < n; i++ {
		if isValid(i) {
			data = append(data, at(i)...)
		}
		offs[i+1] = int32(len(data))
	}
	return kernel.NewString(offs, data, valid)
}

func encodeIPC(rec arrow.Record) ([]byte, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// columnFields yields the fields of struct type t that are columns, each
// with its column's name: exported fields not embedded, named by their
// `dusk` tag or their own name, `dusk:"-"` left out (FromRecords, Scan).
func columnFields(t reflect.Type) iter.Seq2[reflect.StructField, string] {
	return func(yield func(reflect.StructField, string) bool) {
		for _, f := range reflect.VisibleFields(t) {
			if !f.IsExported() || f.Anonymous {
				continue
			}
			name := f.Name
			if tag := f.Tag.Get("dusk"); tag == "-" {
				continue
			} else if tag != "" {
				name = tag
			}
			if !yield(f, name) {
				return
			}
		}
	}
}

// FromRecords makes a frame of Go structs, split into npartitions partitions
// of about equal size. Exported fields become columns, named by their `dusk`
// tag or their name (`dusk:"-"` leaves a field out): integers become int64,
// floats float64, strings and bools themselves, and a nil pointer to one of
// those is null.
func FromRecords[T any](rows []T, npartitions int) *Frame {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return failed(fmt.Errorf("FromRecords: %s is not a struct type", t))
	}
	npartitions = max(npartitions, 1)
	type col struct {
		index []int
		name  string
		kind  kernel.Kind
	}
	var cols []col
	for f, name := range columnFields(t) {
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		var k kernel.Kind
		switch ft.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint8, reflect.Uint16, reflect.Uint32:
			k = kernel.KindInt
		case reflect.Float32, reflect.Float64:
			k = kernel.KindFloat
		case reflect.String:
			k = kernel.KindString
		case reflect.Bool:
			k = kernel.KindBool
		default:
			return failed(fmt.Errorf("FromRecords: field %s has type %s, which has no column type", f.Name, f.Type))
		}
		cols = append(cols, col{index: f.Index, name: name, kind: k})
	}
	if len(cols) == 0 {
		return failed(fmt.Errorf("FromRecords: %s has no exported fields", t))
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.name, Type: expr.TypeOfKind(c.kind), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	var recs []arrow.Record
	for p := 0; p < npartitions; p++ {
		lo, hi := p*len(rows)/npartitions, (p+1)*len(rows)/npartitions
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for _, row := range rows[lo:hi] {
			v := reflect.ValueOf(row)
			for i, c := range cols {
				fv := v.FieldByIndex(c.index)
				if fv.Kind() == reflect.Pointer {
					if fv.IsNil() {
						b.Field(i).AppendNull()
						continue
					}
					fv = fv.Elem()
				}
				switch bf := b.Field(i).(type) {
				case *array.Int64Builder:
					if fv.CanInt() {
						bf.Append(fv.Int())
					} else {
						bf.Append(int64(fv.Uint()))
					}
				case *array.Float64Builder:
					bf.Append(fv.Float())
				case *array.StringBuilder:
					bf.Append(fv.String())
				case *array.BooleanBuilder:
					bf.Append(fv.Bool())
				}
			}
		}
		recs = append(recs, b.NewRecord())
		b.Release()
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	return FromArrow(recs...)
}
