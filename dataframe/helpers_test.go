package dataframe_test

// Shared test fixtures: a client per test, generated rows with nulls in every
// column, partition layouts with empty and one-row partitions, the same rows
// as a frame from Arrow records or from CSV files, and plain Go helpers to
// read computed tables and compare them with a reference.

import (
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/collections/testcluster"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/io/avro"
	"github.com/duskdata/dusk/io/jsonl"
	"github.com/duskdata/dusk/io/parquet"
)

// newClient starts a local cluster of two workers for t (testcluster.Local).
func newClient(t testing.TB) context.Context { return testcluster.Local(t) }

// testRow is one generated row; a nil pointer is a null.
type testRow struct {
	ID int64 // the row's index, never null
	I  *int64
	J  *int64 // small, with zeros, for division
	F  *float64
	G  *float64
	S  *string // mostly distinct, some with commas and quotes
	T  *string // few distinct values
	B  *bool
	K  *string // group key: a few areas, "zz" (no values) and "solo" (one value)
	KI *int64  // group key 0..3
}

// testColumns are testRow's columns, in order, and testTypes their types.
var (
	testColumns = []string{"ID", "I", "J", "F", "G", "S", "T", "B", "K", "KI"}
	testTypes   = []string{"int64", "int64", "int64", "float64", "float64", "utf8", "utf8", "bool", "utf8", "int64"}
)

func ptr[T any](v T) *T { return &v }

// genRows makes n rows from seed, each nullable column null about one time
// in seven.
func genRows(seed int64, n int) []testRow {
	r := rand.New(rand.NewSource(seed))
	null := func() bool { return r.Intn(7) == 0 }
	words := []string{"apple", "banana", "cherry", "Zebra", "ant", "m", "mango", "a,b", `say "hi"`, "émigré", "apple pie"}
	areas := []string{"north", "south", "east", "west", "center"}
	num := func() float64 {
		if r.Intn(4) == 0 {
			return r.NormFloat64() * 1e3
		}
		return float64(r.Intn(2001)-1000) / 8 // exact, and often repeated
	}
	rows := make([]testRow, n)
	for i := range rows {
		row := testRow{ID: int64(i)}
		if !null() {
			row.I = ptr(r.Int63n(101) - 50)
		}
		if !null() {
			row.J = ptr(r.Int63n(11) - 5)
		}
		if !null() {
			row.F = ptr(num())
		}
		if !null() {
			row.G = ptr(num())
		}
		if !null() {
			w := words[r.Intn(len(words))]
			if r.Intn(2) == 0 {
				w += strconv.Itoa(r.Intn(1000))
			}
			row.S = ptr(w)
		}
		if !null() {
			row.T = ptr(words[r.Intn(4)])
		}
		if !null() {
			row.B = ptr(r.Intn(2) == 0)
		}
		switch {
		case i == n/2:
			row.K, row.I, row.F = ptr("solo"), ptr(int64(7)), ptr(2.5)
		case r.Intn(20) == 0:
			row.K, row.I, row.F = ptr("zz"), nil, nil
		case !null():
			row.K = ptr(areas[r.Intn(len(areas))])
		}
		if !null() {
			row.KI = ptr(r.Int63n(4))
		}
		rows[i] = row
	}
	return rows
}

// values is the row as Go values in testColumns' order, nil for null.
func (r testRow) values() []any {
	return []any{r.ID, val(r.I), val(r.J), val(r.F), val(r.G), val(r.S), val(r.T), val(r.B), val(r.K), val(r.KI)}
}

func val[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// layout is how many rows each partition gets.
type layout struct {
	name  string
	sizes []int
}

// layouts splits n rows (n >= 20) into 1, 3 and 16 partitions; with 3 the
// middle one is empty, with 16 the first, the last and two others are
// empty and two have a single row.
func layouts(n int) []layout {
	weights := []int{0, 3, 1, -1, 2, 0, 5, 1, 1, -1, 4, 0, 2, 3, 1, 0} // -1: one row
	sizes := make([]int, len(weights))
	total := 0
	for _, w := range weights {
		total += max(w, 0)
	}
	left := n
	for i, w := range weights {
		if w < 0 {
			sizes[i] = 1
			left--
		}
	}
	rest := left
	last := 0
	for i, w := range weights {
		if w > 0 {
			sizes[i] = rest * w / total
			left -= sizes[i]
			last = i
		}
	}
	sizes[last] += left
	return []layout{
		{"p=1", []int{n}},
		{"p=3", []int{n / 2, 0, n - n/2}},
		{"p=16", sizes},
	}
}

// source is one way of making a frame of rows.
type source struct {
	name string
	make func(t *testing.T, rows []testRow, sizes []int) *dataframe.Frame
}

// sources are the ways frames are made: Arrow records, one per partition,
// and CSV files, one per partition (a header-only file when empty), read
// with a glob; the CSV reader dictionary-encodes the repetitive strings.
var sources = []source{{"arrow", arrowFrame}, {"csv", csvFrame}, {"parquet", parquetFrame}, {"json", jsonFrame}, {"avro", avroFrame}}

// testFrame is a frame of generated rows in one layout from one source.
type testFrame struct {
	name  string
	frame *dataframe.Frame
	rows  []testRow
}

// eachFrame makes the rows into a frame in every layout from every source.
func eachFrame(t *testing.T, rows []testRow) []testFrame {
	t.Helper()
	var out []testFrame
	for _, src := range sources {
		for _, l := range layouts(len(rows)) {
			f := src.make(t, rows, l.sizes)
			if err := f.Err(); err != nil {
				t.Fatalf("%s/%s: %v", src.name, l.name, err)
			}
			if got := f.NumPartitions(); got != len(l.sizes) {
				t.Fatalf("%s/%s: %d partitions, want %d", src.name, l.name, got, len(l.sizes))
			}
			out = append(out, testFrame{name: src.name + "/" + l.name, frame: f, rows: rows})
		}
	}
	return out
}

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "ID", Type: arrow.PrimitiveTypes.Int64},
	{Name: "I", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "J", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "F", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "G", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "S", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "T", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "B", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "K", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "KI", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// record builds rows as an Arrow record of testSchema.
func record(rows []testRow) arrow.Record {
	b := array.NewRecordBuilder(memory.DefaultAllocator, testSchema)
	defer b.Release()
	for _, r := range rows {
		for i, v := range r.values() {
			fb := b.Field(i)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch v := v.(type) {
			case int64:
				fb.(*array.Int64Builder).Append(v)
			case float64:
				fb.(*array.Float64Builder).Append(v)
			case string:
				fb.(*array.StringBuilder).Append(v)
			case bool:
				fb.(*array.BooleanBuilder).Append(v)
			}
		}
	}
	return b.NewRecord()
}

func arrowFrame(t *testing.T, rows []testRow, sizes []int) *dataframe.Frame {
	recs := make([]arrow.Record, len(sizes))
	lo := 0
	for i, n := range sizes {
		recs[i] = record(rows[lo : lo+n])
		lo += n
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	return dataframe.FromArrow(recs...)
}

// csvTypes fixes every column's type: a header-only first file would
// otherwise make every column a string.
var csvTypes = map[string]string{"ID": "int64", "I": "int64", "J": "int64", "F": "float64", "G": "float64",
	"S": "string", "T": "string", "B": "bool", "K": "string", "KI": "int64"}

func csvFrame(t *testing.T, rows []testRow, sizes []int) *dataframe.Frame {
	dir := t.TempDir()
	lo := 0
	for i, n := range sizes {
		writeCSV(t, filepath.Join(dir, fmt.Sprintf("part-%02d.csv", i)), testColumns, rows[lo:lo+n])
		lo += n
	}
	return dataframe.ReadCSV(filepath.Join(dir, "part-*.csv"), dataframe.CSVOptions{Types: csvTypes})
}

// parquetFrame writes each partition's rows as a Parquet file with
// io/parquet (small row groups, so that partitions hold several) and reads
// them with a glob.
func parquetFrame(t *testing.T, rows []testRow, sizes []int) *dataframe.Frame {
	return fileFrame(t, rows, sizes, "parquet", func(w io.Writer, rec arrow.Record) error {
		return parquet.Write(w, rec.Schema(), []arrow.Record{rec}, parquet.WriteOptions{RowGroupRows: 7})
	}, func(pattern string) *dataframe.Frame { return dataframe.ReadParquet(pattern) })
}

// avroFrame writes each partition's rows as an Avro file with io/avro and
// reads them with a glob.
func avroFrame(t *testing.T, rows []testRow, sizes []int) *dataframe.Frame {
	return fileFrame(t, rows, sizes, "avro", func(w io.Writer, rec arrow.Record) error {
		return avro.Write(w, []arrow.Record{rec}, avro.WriteOptions{Schema: rec.Schema()})
	}, func(pattern string) *dataframe.Frame { return dataframe.ReadAvro(pattern) })
}

// jsonFrame writes each partition's rows as JSON lines with io/jsonl and
// reads them with a glob.
func jsonFrame(t *testing.T, rows []testRow, sizes []int) *dataframe.Frame {
	return fileFrame(t, rows, sizes, "json", jsonl.Write, func(pattern string) *dataframe.Frame {
		return dataframe.ReadJSON(pattern, dataframe.JSONOptions{Types: csvTypes})
	})
}

func fileFrame(t *testing.T, rows []testRow, sizes []int, ext string, write func(io.Writer, arrow.Record) error, read func(string) *dataframe.Frame) *dataframe.Frame {
	dir := t.TempDir()
	lo := 0
	for i, n := range sizes {
		rec := record(rows[lo : lo+n])
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("part-%02d.%s", i, ext)))
		if err != nil {
			t.Fatal(err)
		}
		if err := write(f, rec); err != nil {
			t.Fatal(err)
		}
		f.Close()
		rec.Release()
		lo += n
	}
	return read(filepath.Join(dir, "part-*."+ext))
}

// writeCSV writes rows with a header; nulls are empty fields.
func writeCSV(t *testing.T, path string, header []string, rows []testRow) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.Write(header)
	for _, r := range rows {
		rec := make([]string, 0, len(header))
		for _, v := range r.values() {
			rec = append(rec, formatValue(v))
		}
		w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func formatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	}
	panic(fmt.Sprintf("formatValue %T", v))
}

// compute runs f and returns the table, released when t ends.
func compute(t *testing.T, ctx context.Context, f *dataframe.Frame) *dataframe.Table {
	t.Helper()
	tb, err := f.Compute(ctx)
	if err != nil {
		t.Fatalf("Compute: %v", err)
	}
	t.Cleanup(tb.Release)
	return tb
}

// tableRows reads a table as rows of int64, float64, string, bool or nil
// (narrower integers as int64, float32 as float64); a column of any other
// type (dictionary strings among them) fails t.
func tableRows(t *testing.T, tb *dataframe.Table) [][]any {
	t.Helper()
	rec := tb.Record()
	rows := make([][]any, rec.NumRows())
	for i := range rows {
		rows[i] = make([]any, rec.NumCols())
	}
	for c, col := range rec.Columns() {
		for i := range rows {
			if col.IsNull(i) {
				continue
			}
			switch a := col.(type) {
			case *array.Int64:
				rows[i][c] = a.Value(i)
			case *array.Int32:
				rows[i][c] = int64(a.Value(i))
			case *array.Int8:
				rows[i][c] = int64(a.Value(i))
			case *array.Uint16:
				rows[i][c] = int64(a.Value(i))
			case *array.Float32:
				rows[i][c] = float64(a.Value(i))
			case *array.Float64:
				rows[i][c] = a.Value(i)
			case *array.String:
				rows[i][c] = a.Value(i)
			case *array.Boolean:
				rows[i][c] = a.Value(i)
			default:
				t.Fatalf("column %s has type %s; want int64, float64, utf8 or bool", rec.ColumnName(c), col.DataType())
			}
		}
	}
	return rows
}

// checkSchema checks a schema's column names and type names.
func checkSchema(t *testing.T, what string, s *arrow.Schema, cols, types []string) {
	t.Helper()
	var gotCols, gotTypes []string
	for _, f := range s.Fields() {
		gotCols = append(gotCols, f.Name)
		gotTypes = append(gotTypes, f.Type.String())
	}
	if fmt.Sprint(gotCols) != fmt.Sprint(cols) || fmt.Sprint(gotTypes) != fmt.Sprint(types) {
		t.Fatalf("%s: columns %v of types %v, want %v of types %v", what, gotCols, gotTypes, cols, types)
	}
}

// checkTable checks a computed table's columns, types (also those the
// frame promised) and rows; floats within tol relative difference, or
// exactly when tol is 0.
func checkTable(t *testing.T, f *dataframe.Frame, tb *dataframe.Table, cols, types []string, want [][]any, tol float64) {
	t.Helper()
	checkSchema(t, "frame schema", f.Schema(), cols, types)
	checkSchema(t, "table schema", tb.Schema(), cols, types)
	checkRows(t, tableRows(t, tb), want, tol)
}

// checkTableAnyOrder is checkTable for a result whose rows come in no
// promised order (an aggregation of many groups, split over partitions).
func checkTableAnyOrder(t *testing.T, f *dataframe.Frame, tb *dataframe.Table, cols, types []string, want [][]any, tol float64) {
	t.Helper()
	checkSchema(t, "frame schema", f.Schema(), cols, types)
	checkSchema(t, "table schema", tb.Schema(), cols, types)
	checkRows(t, canonical(tableRows(t, tb)), canonical(want), tol)
}

func checkRows(t *testing.T, got, want [][]any, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d\nfirst got:  %v\nfirst want: %v", len(got), len(want), head(got), head(want))
	}
	bad := 0
	for i := range want {
		for c := range want[i] {
			if !sameValue(got[i][c], want[i][c], tol) {
				t.Errorf("row %d column %d: got %v (%T), want %v (%T)\n got row:  %v\n want row: %v",
					i, c, got[i][c], got[i][c], want[i][c], want[i][c], got[i], want[i])
				if bad++; bad == 5 {
					t.Fatalf("too many differences")
				}
				break
			}
		}
	}
}

func head(rows [][]any) [][]any { return rows[:min(len(rows), 3)] }

// sameValue compares two cells: the same Go type and value; NaN equals
// NaN; floats within tol relative difference.
func sameValue(a, b any, tol float64) bool {
	fa, okA := a.(float64)
	fb, okB := b.(float64)
	if okA && okB {
		switch {
		case math.IsNaN(fa) || math.IsNaN(fb):
			return math.IsNaN(fa) && math.IsNaN(fb)
		case fa == fb:
			return true
		}
		return math.Abs(fa-fb) <= tol*math.Max(math.Abs(fa), math.Abs(fb))+tol*1e-3
	}
	return a == b
}

// tri is a SQL truth value: false, true or null (unknown).
type tri int8

const (
	triNull tri = iota
	triFalse
	triTrue
)

func truth(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

func and3(a, b tri) tri {
	switch {
	case a == triFalse || b == triFalse:
		return triFalse
	case a == triNull || b == triNull:
		return triNull
	}
	return triTrue
}

func or3(a, b tri) tri {
	switch {
	case a == triTrue || b == triTrue:
		return triTrue
	case a == triNull || b == triNull:
		return triNull
	}
	return triFalse
}

func not3(a tri) tri {
	switch a {
	case triTrue:
		return triFalse
	case triFalse:
		return triTrue
	}
	return triNull
}

// cmp3 compares a nullable value with another by op ("==", "!=", "<",
// "<=", ">", ">="); a null on either side is null.
func cmp3[T cmp.Ordered](a, b *T, op string) tri {
	if a == nil || b == nil {
		return triNull
	}
	c := cmp.Compare(*a, *b)
	switch op {
	case "==":
		return truth(c == 0)
	case "!=":
		return truth(c != 0)
	case "<":
		return truth(c < 0)
	case "<=":
		return truth(c <= 0)
	case ">":
		return truth(c > 0)
	case ">=":
		return truth(c >= 0)
	}
	panic("cmp3: op " + op)
}

// asFloat converts a nullable int to a nullable float.
func asFloat(p *int64) *float64 {
	if p == nil {
		return nil
	}
	return ptr(float64(*p))
}

// keep lists the values of the rows where pred is true.
func keep(rows []testRow, pred func(testRow) tri) [][]any {
	var out [][]any
	for _, r := range rows {
		if pred(r) == triTrue {
			out = append(out, r.values())
		}
	}
	return out
}

// wantErr checks that err is not nil and mentions every one of parts.
func wantErr(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want one mentioning %q", what, parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not mention %q", what, err, p)
		}
	}
}

// boolOf reads a nullable bool as a truth value.
func boolOf(b *bool) tri {
	if b == nil {
		return triNull
	}
	return truth(*b)
}
