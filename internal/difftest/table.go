package difftest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe"
)

// kind is a column type the generator makes.
type kind int

const (
	kInt64 kind = iota
	kInt32
	kInt8
	kFloat64
	kString
	kBool
	kDate
	kDecimal
	kUint16
	kTimestamp   // naive, microseconds
	kTimestampNY // microseconds in America/New_York, across its clock changes
	kinds
	// kDecimalWide is decimal(30,4), past the 18 digits Dusk computes
	// exactly: a third of the decimal columns (drawn apart, so that the
	// other kinds' draws stay as they were).
	kDecimalWide
	// kDuration is computed, never a table's: Parquet has no durations.
	kDuration
	// The other integer widths, drawn apart as kDecimalWide is: int16 for
	// some int32 columns, uint8 and uint32 for some uint16 ones, uint64 for
	// some int64 ones.
	kInt16
	kUint8
	kUint32
	kUint64
	// kHash is uint64 over its whole range, as hashes and IDs are, for half
	// the uint64 columns: keys, sorted, compared, counted (see doc.go).
	kHash
)

var kindNames = [...]string{"int64", "int32", "int8", "float64", "string", "bool", "date", "decimal(12,2)", "uint16",
	"timestamp[us]", "timestamp[us, America/New_York]", "", "decimal(30,4)", "duration[us]", "int16", "uint8", "uint32", "uint64", "uint64 (hash)"}

func (k kind) String() string { return kindNames[k] }

func (k kind) arrowType() arrow.DataType {
	switch k {
	case kInt64:
		return arrow.PrimitiveTypes.Int64
	case kInt32:
		return arrow.PrimitiveTypes.Int32
	case kInt8:
		return arrow.PrimitiveTypes.Int8
	case kFloat64:
		return arrow.PrimitiveTypes.Float64
	case kString:
		return arrow.BinaryTypes.String
	case kBool:
		return arrow.FixedWidthTypes.Boolean
	case kDate:
		return arrow.FixedWidthTypes.Date32
	case kUint16:
		return arrow.PrimitiveTypes.Uint16
	case kTimestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case kTimestampNY:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "America/New_York"}
	case kDecimalWide:
		return &arrow.Decimal128Type{Precision: 30, Scale: 4}
	case kInt16:
		return arrow.PrimitiveTypes.Int16
	case kUint8:
		return arrow.PrimitiveTypes.Uint8
	case kUint32:
		return arrow.PrimitiveTypes.Uint32
	case kUint64, kHash:
		return arrow.PrimitiveTypes.Uint64
	}
	return &arrow.Decimal128Type{Precision: 12, Scale: 2}
}

// numeric kinds add, compare with numbers and sum.
func (k kind) numeric() bool { return k.integer() || k == kFloat64 || k == kDecimal }

// integer kinds are the integers of every width.
func (k kind) integer() bool { return k <= kInt8 || k == kUint16 || k >= kInt16 && k <= kUint64 }

// timestamp kinds are the timestamps, naive or zoned.
func (k kind) timestamp() bool { return k == kTimestamp || k == kTimestampNY }

// tsBase is where generated timestamps start: before New York's clocks went
// back on 2021-11-07 at 06:00Z; every 7 minutes from it, they cross it.
var tsBase = time.Date(2021, 11, 7, 3, 0, 0, 0, time.UTC)

// column is one generated column.
type column struct {
	Name  string
	Kind  kind
	Nulls float64 // the share of rows that are null
	// Distinct bounds its values (few: many repeats, for groups and joins).
	Distinct int
}

// table is a generated table: its columns and rows, written as Parquet.
type table struct {
	Name string
	Cols []column
	Rows int
	Seed uint64
	Drop []string // columns left out of its files (a shrunk case's)
}

// kept are the columns its files hold: Cols less Drop.
func (t table) kept() []column {
	return slices.DeleteFunc(slices.Clone(t.Cols), func(c column) bool { return slices.Contains(t.Drop, c.Name) })
}

// strs are the strings values are drawn from: empty, padded, cased,
// non-ASCII, long.
var strs = []string{"", "a", "A", "b", "apple", "Apple", "apple pie", " pad ", "é", "日本", "zz", "a,b", `q"uote`,
	strings.Repeat("long", 20)}

// newTable draws a table of rows rows and 2 to 6 columns.
func newTable(r *rand.Rand, name string, rows int) table {
	t := table{Name: name, Rows: rows, Seed: r.Uint64()}
	n := 2 + r.IntN(5)
	for i := range n {
		c := column{Name: fmt.Sprintf("%s%d", name, i), Kind: kind(r.IntN(int(kinds)))}
		switch r.IntN(3) {
		case 1:
			c.Nulls = 0.2
		case 2:
			c.Nulls = []float64{0.02, 0.5, 1}[r.IntN(3)]
		}
		c.Distinct = []int{3, 20, 1000}[r.IntN(3)]
		t.Cols = append(t.Cols, c)
	}
	apart := rand.New(rand.NewPCG(t.Seed, 3))
	for i := range t.Cols {
		switch k := &t.Cols[i].Kind; {
		case *k == kDecimal && apart.IntN(3) == 0:
			*k = kDecimalWide
		case *k == kInt32 && apart.IntN(4) == 0:
			*k = kInt16
		case *k == kUint16:
			*k = []kind{kUint16, kUint16, kUint8, kUint32}[apart.IntN(4)]
		case *k == kInt64 && apart.IntN(4) == 0:
			*k = []kind{kUint64, kHash}[apart.IntN(2)]
		}
	}
	return t
}

// record builds t's rows from its seed.
func (t table) record() arrow.Record {
	r := rand.New(rand.NewPCG(t.Seed, 7))
	fields := make([]arrow.Field, len(t.Cols))
	for i, c := range t.Cols {
		fields[i] = arrow.Field{Name: c.Name, Type: c.Kind.arrowType(), Nullable: true}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for range t.Rows {
		for i, c := range t.Cols {
			fb := b.Field(i)
			if c.Nulls > 0 && r.Float64() < c.Nulls {
				fb.AppendNull()
				continue
			}
			v := r.IntN(c.Distinct)
			switch c.Kind {
			case kInt64:
				fb.(*array.Int64Builder).Append(int64(v - c.Distinct/2))
			case kInt32:
				fb.(*array.Int32Builder).Append(int32(v - c.Distinct/2))
			case kInt8:
				fb.(*array.Int8Builder).Append(int8(v%200 - 100))
			case kFloat64:
				fb.(*array.Float64Builder).Append(floatOf(r, v, c.Distinct))
			case kString:
				s := strs[v%len(strs)]
				if v >= len(strs) {
					s += fmt.Sprint(v)
				}
				fb.(*array.StringBuilder).Append(s)
			case kBool:
				fb.(*array.BooleanBuilder).Append(v%2 == 0)
			case kDate:
				fb.(*array.Date32Builder).Append(arrow.Date32(18000 + v))
			case kDecimal:
				fb.(*array.Decimal128Builder).Append(decimal128.FromI64(int64(v-c.Distinct/2)*137 + int64(v%100)))
			case kDecimalWide: // up to 1.4e19 and four decimals
				n := decimal128.FromI64(int64(v-c.Distinct/2) * 137).Mul(decimal128.FromI64(100_000_000_000_000)).Add(decimal128.FromI64(int64(v % 100)))
				fb.(*array.Decimal128Builder).Append(n)
			case kUint16:
				fb.(*array.Uint16Builder).Append(uint16(v * 61))
			case kInt16:
				fb.(*array.Int16Builder).Append(int16(v - c.Distinct/2))
			case kUint8:
				fb.(*array.Uint8Builder).Append(uint8(v % 256))
			case kUint32:
				fb.(*array.Uint32Builder).Append(uint32(v) * 4_000_000)
			case kUint64:
				fb.(*array.Uint64Builder).Append(uint64(v) * 1_000_000_007)
			case kHash: // spread over every uint64, half above int64's range
				fb.(*array.Uint64Builder).Append(uint64(v) * 0x9E3779B97F4A7C15)
			case kTimestamp, kTimestampNY:
				fb.(*array.TimestampBuilder).Append(arrow.Timestamp(tsBase.Add(time.Duration(v)*7*time.Minute + time.Duration(v%60)*time.Second).UnixMicro()))
			}
		}
	}
	rec := b.NewRecord()
	if len(t.Drop) == 0 {
		return rec
	}
	// Drawn whole, so that the columns kept hold the values they would.
	defer rec.Release()
	var cols []arrow.Array
	var kept []arrow.Field
	for i, f := range fields {
		if !slices.Contains(t.Drop, f.Name) {
			cols, kept = append(cols, rec.Column(i)), append(kept, f)
		}
	}
	return array.NewRecord(arrow.NewSchema(kept, nil), cols, rec.NumRows())
}

// floatOf is a float from v: mostly exact eighths, now and then -0, a
// large value, an infinity or a NaN.
func floatOf(r *rand.Rand, v, distinct int) float64 {
	switch r.IntN(50) {
	case 0:
		return math.Copysign(0, -1)
	case 1:
		return math.Inf(1 - 2*r.IntN(2))
	case 2:
		return float64(v) * 1e15
	case 3:
		return math.NaN()
	}
	return float64(v-distinct/2) / 8
}

// parts cuts t's rows into parts slices (some of them empty where the
// rows are few), the partitions of each format; release them.
func (t table) parts(parts int) []arrow.Record {
	rec := t.record()
	defer rec.Release()
	recs := make([]arrow.Record, parts)
	for p := range parts {
		recs[p] = rec.NewSlice(int64(t.Rows*p/parts), int64(t.Rows*(p+1)/parts))
	}
	return recs
}

// formats are the inputs Dusk reads a table from: DuckDB reads the Parquet
// files always, so that a format's writer and reader are checked together
// against an independent reading of the same rows.
var formats = []string{"parquet", "csv", "arrow"}

// write writes t as Parquet in parts files under dir, which DuckDB reads
// through the glob it returns, and gives Dusk's frame of t in format
// (parquet, csv or arrow: the records themselves).
func (t table) write(ctx context.Context, dir string, parts int, format string) (string, *dataframe.Frame, error) {
	recs := t.parts(parts)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	out := dir + "/" + t.Name
	if _, err := dataframe.FromArrow(recs...).ToParquet(ctx, out); err != nil {
		return "", nil, fmt.Errorf("write %s: %w", t.Name, err)
	}
	glob := out + "/*.parquet"
	switch format {
	case "csv":
		// Nulls apart from empty strings and from NaN, which pandas'
		// defaults (and Dusk's) read as null.
		if _, err := dataframe.FromArrow(recs...).ToCSV(ctx, out+"-csv", dataframe.CSVWriteOptions{Null: `\N`}); err != nil {
			return "", nil, fmt.Errorf("write %s as CSV: %w", t.Name, err)
		}
		types := map[string]string{}
		for _, c := range t.kept() {
			types[c.Name] = c.Kind.arrowType().String()
			if c.Kind == kString {
				types[c.Name] = "string"
			}
		}
		return glob, dataframe.ReadCSV(out+"-csv/*.csv", dataframe.CSVOptions{Types: types, NullValues: []string{`\N`}, NoDefaultNulls: true}), nil
	case "arrow":
		// Strings of few values as dictionaries, as Dusk's readers give them.
		var dicts []arrow.Record
		for _, r := range recs {
			d, err := t.dictStrings(r)
			if err != nil {
				return "", nil, err
			}
			defer d.Release()
			dicts = append(dicts, d)
		}
		return glob, dataframe.FromArrow(dicts...), nil
	}
	f := dataframe.ReadParquet(glob)
	for _, c := range t.kept() {
		if c.Kind == kTimestampNY {
			// Parquet keeps that a timestamp is an instant, not its zone:
			// Dusk reads it in UTC, and the user says the zone.
			f = f.WithColumn(c.Name, dataframe.Col(c.Name).Cast(c.Kind.arrowType()))
		}
	}
	return glob, f, nil
}

// dictStrings is rec with its string columns of few distinct values
// dictionary-encoded (int32 indices).
func (t table) dictStrings(rec arrow.Record) (arrow.Record, error) {
	cols := make([]arrow.Array, rec.NumCols())
	fields := slices.Clone(rec.Schema().Fields())
	for i, c := range t.kept() {
		cols[i] = rec.Column(i)
		if c.Kind != kString || c.Distinct > 20 {
			cols[i].Retain()
			continue
		}
		typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
		b := array.NewDictionaryBuilder(memory.DefaultAllocator, typ).(*array.BinaryDictionaryBuilder)
		s := cols[i].(*array.String)
		for j := range s.Len() {
			if s.IsNull(j) {
				b.AppendNull()
			} else if err := b.AppendString(s.Value(j)); err != nil {
				return nil, fmt.Errorf("dictionary of %s: %w", c.Name, err)
			}
		}
		cols[i], fields[i].Type = b.NewArray(), typ
		b.Release()
	}
	out := array.NewRecord(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
