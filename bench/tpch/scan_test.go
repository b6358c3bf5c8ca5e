package tpch_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/bench/tpch"
	"github.com/duskdata/dusk/io/parquet"
)

// Each scan of `dusk bench tpch --scan` answers what a plain loop over the
// lineitem files' column gives (a sum of int32 keys, of doubles, a maximum
// of dates and of strings, plain and dictionary-encoded), and counts the
// column's bytes in the files.
func TestScansSF1(t *testing.T) {
	if testing.Short() {
		t.Skip("generates TPC-H SF1")
	}
	dir := sf1(t)
	ctx := testClient(t)
	tables, err := tpch.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := tpch.Scans(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "lineitem", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no lineitem files: %v", err)
	}
	for _, c := range cols {
		t.Run(c.Name, func(t *testing.T) {
			if c.Compressed <= 0 {
				t.Errorf("%d compressed bytes", c.Compressed)
			}
			tab, err := c.Frame(tables).Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tab.Release()
			if tab.NumRows() != 1 {
				t.Fatalf("%d rows", tab.NumRows())
			}
			got, want := valueString(tab.Record().Column(0), 0), reference(t, files, c)
			if f, ok := tab.Record().Column(0).(*array.Float64); ok {
				var w float64
				if _, err := fmt.Sscan(want, &w); err == nil && math.Abs(f.Value(0)-w) <= 1e-9*math.Abs(w) {
					want = got // a sum of doubles in another order: equal to 1e-9
				}
			}
			if got != want {
				t.Errorf("%s of %s = %s, want %s", map[bool]string{true: "max", false: "sum"}[c.Max], c.Name, got, want)
			}
		})
	}
}

// reference is c's sum or maximum over the files, read column by column.
func reference(t *testing.T, files []string, c tpch.ScanColumn) string {
	var sumI int64
	var sumF float64
	var best string
	var bestDate int32 = math.MinInt32
	isFloat, isDate, isString := false, false, false
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		rec, err := parquet.Read(f, st.Size(), path, nil, []string{c.Name})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		col := rec.Column(0)
		for i := 0; i < col.Len(); i++ {
			if col.IsNull(i) {
				continue
			}
			switch a := col.(type) {
			case *array.Int32:
				sumI += int64(a.Value(i))
			case *array.Int64:
				sumI += a.Value(i)
			case *array.Float64:
				isFloat = true
				sumF += a.Value(i)
			case *array.Date32:
				isDate = true
				bestDate = max(bestDate, int32(a.Value(i)))
			case *array.String:
				isString = true
				best = max(best, a.Value(i))
			case *array.Dictionary:
				isString = true
				best = max(best, a.Dictionary().(*array.String).Value(a.GetValueIndex(i)))
			default:
				t.Fatalf("%s is %s", c.Name, col.DataType())
			}
		}
		rec.Release()
	}
	switch {
	case isFloat:
		return fmt.Sprint(sumF)
	case isDate:
		return arrow.Date32(bestDate).FormattedString()
	case isString:
		return best
	}
	return fmt.Sprint(sumI)
}

// valueString prints the row's value as reference does.
func valueString(a arrow.Array, i int) string {
	switch a := a.(type) {
	case *array.Float64:
		return fmt.Sprint(a.Value(i))
	case *array.Date32:
		return a.Value(i).FormattedString()
	case *array.Int64:
		return fmt.Sprint(a.Value(i))
	case *array.String:
		return a.Value(i)
	}
	return a.ValueStr(i)
}
