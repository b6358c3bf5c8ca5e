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

// The files of testdata/types were written by other tools (gen.mjs there):
// duckdb.parquet by DuckDB 1.5.6, with DuckDB's own reading of it as
// duckdb.expected.csv; impala.expected.csv is DuckDB's reading of Impala's
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
