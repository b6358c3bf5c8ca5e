package dataframe_test

import (
	"encoding/csv"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"

	"github.com/duskdata/dusk/dataframe"
)

// The files of testdata/types were written by other tools: duckdb.parquet
// by DuckDB 1.5.6 (gen.mjs), with DuckDB's own reading of it as
// duckdb.expected.csv; arrowgo.parquet by Apache Arrow's Go Parquet writer
// (arrowgo_gen.go.txt: INT32, DATE, TIMESTAMP(us, UTC), INT96 and
// DECIMAL(15,2) in one file), read by DuckDB for arrowgo.expected.csv; and
// impala.expected.csv is DuckDB's reading of Impala's
// alltypes_plain.snappy.parquet (INT96 timestamps).

// typedFiles are the files, the types Dusk must read them as, and the
// expected values.
var typedFiles = []struct {
	path, expected string
	types          map[string]string
}{
	{"testdata/types/duckdb.parquet", "testdata/types/duckdb.expected.csv", map[string]string{
		"i": "int32", "d": "date32", "ts": "timestamp[us, tz=UTC]", "ts_ns": "timestamp[us]",
		"price": "decimal(15, 2)", "big": "decimal(30, 4)", "tiny": "int8", "small": "int16",
		"utiny": "uint8", "f32": "float32", "s": "utf8",
	}},
	{"testdata/types/arrowgo.parquet", "testdata/types/arrowgo.expected.csv", map[string]string{
		"i": "int32", "d": "date32", "ts": "timestamp[us, tz=UTC]", "t96": "timestamp[ns]", "price": "decimal(15, 2)",
	}},
	{"../io/parquet/testdata/alltypes_plain.snappy.parquet", "testdata/types/impala.expected.csv", map[string]string{
		"id": "int32", "timestamp_col": "timestamp[ns]", "float_col": "float32", "bigint_col": "int64",
	}},
}

// cellText writes a cell as DuckDB's CSV writer does (the reference's
// form), from the Arrow value, by the test's own plain means.
func cellText(t *testing.T, col arrow.Array, i int) string {
	if col.IsNull(i) {
		return ""
	}
	switch a := col.(type) {
	case *array.Date32:
		return time.Unix(int64(a.Value(i))*86400, 0).UTC().Format("2006-01-02")
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		ns := int64(a.Value(i)) * map[arrow.TimeUnit]int64{arrow.Second: 1e9, arrow.Millisecond: 1e6, arrow.Microsecond: 1e3, arrow.Nanosecond: 1}[unit]
		return time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.000000000")
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		v := a.Value(i).BigInt()
		neg := v.Sign() < 0
		digits := new(big.Int).Abs(v).String()
		for len(digits) <= int(scale) {
			digits = "0" + digits
		}
		s := digits[:len(digits)-int(scale)] + "." + digits[len(digits)-int(scale):]
		if neg {
			s = "-" + s
		}
		return s
	case *array.Float32:
		s := strconv.FormatFloat(float64(a.Value(i)), 'f', -1, 32)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	case *array.Int8:
		return strconv.Itoa(int(a.Value(i)))
	case *array.Int16:
		return strconv.Itoa(int(a.Value(i)))
	case *array.Int32:
		return strconv.Itoa(int(a.Value(i)))
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Uint8:
		return strconv.Itoa(int(a.Value(i)))
	case *array.Float64:
		s := strconv.FormatFloat(a.Value(i), 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.String:
		return a.Value(i)
	}
	t.Fatalf("no text for %s", col.DataType())
	return ""
}

func readExpected(t *testing.T, path string) ([]string, [][]string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows[0], rows[1:]
}

// checkTyped checks a table's columns of the typed file against the
// expected rows (in want's order unless sorted by a column).
func checkTyped(t *testing.T, tb *dataframe.Table, header []string, want [][]string, types map[string]string) {
	t.Helper()
	rec := tb.Record()
	if int(rec.NumRows()) != len(want) {
		t.Fatalf("%d rows, want %d", rec.NumRows(), len(want))
	}
	for c, name := range header {
		col := tb.Column(name)
		if col == nil {
			t.Fatalf("no column %s", name)
		}
		if typ, ok := types[name]; ok && col.DataType().String() != typ {
			t.Errorf("column %s is %s, want %s", name, col.DataType(), typ)
		}
		for r := range want {
			if got := cellText(t, col, r); got != want[r][c] {
				t.Fatalf("column %s row %d: got %q, want %q", name, r, got, want[r][c])
			}
		}
	}
}

// TestReadTypedParquet reads files written by DuckDB and Impala with DATE,
// TIMESTAMP (us, UTC and naive), INT96, DECIMAL (INT64 and 16-byte
// FIXED_LEN_BYTE_ARRAY), INT32, narrow and unsigned ints and FLOAT columns,
// and checks their types and every value against DuckDB's reading; then the
// same through a filter, a sort (a shuffle), Persist, and a Parquet and a
// CSV round trip.
func TestReadTypedParquet(t *testing.T) {
	ctx := newClient(t)
	for _, tf := range typedFiles {
		t.Run(filepath.Base(tf.path), func(t *testing.T) {
			header, want := readExpected(t, tf.expected)
			f := dataframe.ReadParquet(tf.path)
			for name, typ := range tf.types {
				if got := f.Schema().Field(f.Schema().FieldIndices(name)[0]).Type.String(); got != typ {
					t.Errorf("schema: column %s is %s, want %s", name, got, typ)
				}
			}
			checkTyped(t, compute(t, ctx, f), header, want, tf.types)

			first := header[0]
			kept := f.Filter(dataframe.Col(first).Gt(3))
			var wantKept [][]string
			for _, r := range want {
				if v, err := strconv.Atoi(r[0]); err == nil && v > 3 {
					wantKept = append(wantKept, r)
				}
			}
			checkTyped(t, compute(t, ctx, kept), header, wantKept, tf.types)

			sorted := f.Repartition(3).SortValues([]string{first}, false)
			tb := compute(t, ctx, sorted)
			rec := tb.Record()
			for i := 1; i < int(rec.NumRows()); i++ {
				a, b := cellText(t, tb.Column(first), i-1), cellText(t, tb.Column(first), i)
				x, _ := strconv.Atoi(a)
				y, err := strconv.Atoi(b)
				if a != "" && b != "" && err == nil && x < y {
					t.Fatalf("sorted descending by %s: row %d %s before %s", first, i, a, b)
				}
			}

			persisted, err := f.Persist(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer persisted.Release()
			checkTyped(t, compute(t, ctx, persisted), header, want, tf.types)

			dir := t.TempDir()
			if _, err := f.ToParquet(ctx, filepath.Join(dir, "pq")); err != nil {
				t.Fatal(err)
			}
			checkTyped(t, compute(t, ctx, dataframe.ReadParquet(filepath.Join(dir, "pq", "*.parquet"))), header, want, tf.types)

			if _, err := f.ToCSV(ctx, filepath.Join(dir, "out.csv"), dataframe.CSVWriteOptions{SingleFile: true}); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "out.csv"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(data), strings.Join(header, ",")+"\n") {
				t.Errorf("CSV header: %q", strings.SplitN(string(data), "\n", 2)[0])
			}
		})
	}
}

// TestDecimalValues spot-checks decimals against exact values.
func TestDecimalValues(t *testing.T) {
	ctx := newClient(t)
	tb := compute(t, ctx, dataframe.ReadParquet("testdata/types/duckdb.parquet").Filter(dataframe.Col("i").Eq(1)))
	price := tb.Column("price").(*array.Decimal128).Value(0)
	if price != decimal128.FromI64(-1895271) {
		t.Errorf("price of row 1 = %s, want -18952.71", price.ToString(2))
	}
}

// TestReadTypedText reads dates, timestamps, decimals and narrow ints from
// CSV (dates and times inferred from ISO 8601, the others given in Types,
// one in a layout of its own) and from JSON lines, against the values
// written; and names the file, line and column of a value that does not
// parse.
func TestReadTypedText(t *testing.T) {
	ctx := newClient(t)
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "t.csv")
	text := "id,d,ts,price,small,local\n" +
		"1,1994-01-05,1994-01-05T10:20:30Z,12.34,7,05/01/1994 10:20\n" +
		"2,,2001-09-09T01:46:40.5Z,-0.5,-300,31/12/1999 23:59\n" +
		"3,2024-02-29,2024-02-29T00:00:00Z,1000000.999,,\n"
	if err := os.WriteFile(csvPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	f := dataframe.ReadCSV(csvPath, dataframe.CSVOptions{
		Types:      map[string]string{"price": "decimal(15, 2)", "small": "int16", "local": "timestamp[ms]"},
		TimeLayout: "02/01/2006 15:04",
	})
	want := map[string]string{"id": "int64", "d": "date32", "ts": "timestamp[us, tz=UTC]", "price": "decimal(15, 2)", "small": "int16", "local": "timestamp[ms]"}
	for _, fl := range f.Schema().Fields() {
		if fl.Type.String() != want[fl.Name] {
			t.Errorf("CSV column %s is %s, want %s", fl.Name, fl.Type, want[fl.Name])
		}
	}
	tb := compute(t, ctx, f)
	at := func(name string, row int) any { return typedValue(t, tb.Column(name), row) }
	checks := []struct {
		col  string
		row  int
		want any
	}{
		{"d", 0, date(1994, 1, 5)}, {"d", 1, nil}, {"d", 2, date(2024, 2, 29)},
		{"ts", 1, time.Date(2001, 9, 9, 1, 46, 40, 5e8, time.UTC)},
		{"price", 0, big.NewRat(1234, 100)}, {"price", 1, big.NewRat(-1, 2)}, {"price", 2, big.NewRat(100000100, 100)},
		{"small", 1, int64(-300)}, {"small", 2, nil},
		{"local", 1, time.Date(1999, 12, 31, 23, 59, 0, 0, time.UTC)},
	}
	for _, c := range checks {
		if got := at(c.col, c.row); !sameTyped(got, c.want) {
			t.Errorf("CSV %s row %d: got %v, want %v", c.col, c.row, got, c.want)
		}
	}

	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("id,d\n1,1994-01-05\n2,1994-13-45\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := dataframe.ReadCSV(bad, dataframe.CSVOptions{Types: map[string]string{"d": "date32"}}).Compute(ctx)
	wantErr(t, "a bad date", err, bad, "line 3", "column d", `"1994-13-45"`)

	jsonPath := filepath.Join(dir, "t.json")
	if err := os.WriteFile(jsonPath, []byte(`{"d": "1994-01-05", "n": 7, "p": "1.25"}`+"\n"+`{"d": null, "n": -8, "p": 2}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jf := dataframe.ReadJSON(jsonPath, dataframe.JSONOptions{Types: map[string]string{"d": "date32", "n": "int8", "p": "decimal(9, 2)"}})
	laid := filepath.Join(dir, "laid.json")
	if err := os.WriteFile(laid, []byte(`{"at": "31/12/1999 23:59"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lt := compute(t, ctx, dataframe.ReadJSON(laid, dataframe.JSONOptions{Types: map[string]string{"at": "timestamp[ms]"}, TimeLayout: "02/01/2006 15:04"}))
	if got := typedValue(t, lt.Column("at"), 0); !sameTyped(got, time.Date(1999, 12, 31, 23, 59, 0, 0, time.UTC)) {
		t.Errorf("JSON with a layout: %v", got)
	}
	jt := compute(t, ctx, jf)
	for name, typ := range map[string]string{"d": "date32", "n": "int8", "p": "decimal(9, 2)"} {
		if got := jt.Column(name).DataType().String(); got != typ {
			t.Errorf("JSON column %s is %s, want %s", name, got, typ)
		}
	}
	if got := typedValue(t, jt.Column("d"), 0); !sameTyped(got, date(1994, 1, 5)) {
		t.Errorf("JSON d: %v", got)
	}
	if got := typedValue(t, jt.Column("p"), 1); !sameTyped(got, big.NewRat(2, 1)) {
		t.Errorf("JSON p: %v", got)
	}

	// Inferred: ISO dates and timestamps in JSON strings; a column that
	// mixes dates with numbers or other text stays text.
	inferred := filepath.Join(dir, "i.json")
	if err := os.WriteFile(inferred, []byte(`{"d": "1994-01-05", "ts": "1994-01-05T10:20:30Z", "mixed": "1994-01-05"}`+"\n"+
		`{"d": "2024-02-29", "ts": "2001-09-09T01:46:40Z", "mixed": "soon"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	it := compute(t, ctx, dataframe.ReadJSON(inferred))
	for name, typ := range map[string]string{"d": "date32", "ts": "timestamp[us, tz=UTC]", "mixed": "utf8"} {
		if got := it.Column(name).DataType().String(); got != typ {
			t.Errorf("inferred JSON column %s is %s, want %s", name, got, typ)
		}
	}
	if got := typedValue(t, it.Column("ts"), 1); !sameTyped(got, time.Date(2001, 9, 9, 1, 46, 40, 0, time.UTC)) {
		t.Errorf("inferred JSON ts: %v", got)
	}
	mixed := filepath.Join(dir, "mixed.csv")
	if err := os.WriteFile(mixed, []byte("a,b\n5,1994-01-05\n1994-01-05,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fl := range dataframe.ReadCSV(mixed).Schema().Fields() {
		if fl.Type.String() != "utf8" {
			t.Errorf("CSV column %s mixing dates with other text is %s, want utf8", fl.Name, fl.Type)
		}
	}
}

// TestTypedRoundTrips writes dates and timestamps to Avro (as its date and
// timestamp logical types) and reads them back, and writes every type of
// the DuckDB-written file to JSON lines and reads it back with Types.
func TestTypedRoundTrips(t *testing.T) {
	ctx := newClient(t)
	dir := t.TempDir()
	f := dataframe.ReadParquet("testdata/types/duckdb.parquet")
	header, want := readExpected(t, "testdata/types/duckdb.expected.csv")
	types := typedFiles[0].types

	timed := f.Select("i", "d", "ts", "ts_ns")
	if _, err := timed.ToAvro(ctx, filepath.Join(dir, "avro")); err != nil {
		t.Fatal(err)
	}
	back := dataframe.ReadAvro(filepath.Join(dir, "avro", "*.avro"))
	checkTyped(t, compute(t, ctx, back.WithColumn("i", dataframe.Col("i").Cast(dataframe.Int64))), header[:4], project4(want), map[string]string{
		"d": "date32", "ts": "timestamp[us, tz=UTC]", "ts_ns": "timestamp[us]"})
	if _, err := f.Select("price", "big").ToAvro(ctx, filepath.Join(dir, "avro2")); err != nil {
		t.Fatalf("decimals to Avro: %v", err)
	}
	decimals := compute(t, ctx, dataframe.ReadAvro(filepath.Join(dir, "avro2", "*.avro")))
	checkSchema(t, "decimals from Avro", decimals.Schema(), []string{"price", "big"}, []string{"decimal(15, 2)", "decimal(30, 4)"})

	if _, err := f.ToJSON(ctx, filepath.Join(dir, "j", "*.json")); err != nil {
		t.Fatal(err)
	}
	jtypes := map[string]string{}
	for k, v := range types {
		jtypes[k] = v
	}
	jtypes["ts"] = "timestamp[us, tz=UTC]"
	jf := dataframe.ReadJSON(filepath.Join(dir, "j", "*.json"), dataframe.JSONOptions{Types: jtypes})
	checkTyped(t, compute(t, ctx, jf), header, want, types)
}

// project4 keeps the first four columns of expected rows.
func project4(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r[:4]
	}
	return out
}
