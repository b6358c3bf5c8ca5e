package tpch

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/io/parquet"
)

// ScanColumn is one column of lineitem whose scan is timed alone: a kind
// of column TPC-H's queries read, summed (the maximum of a date or a
// string), so that a reader's speed on it is measured apart from any
// query's other work, as DuckDB's SELECT sum(col) FROM read_parquet(...).
type ScanColumn struct {
	Name       string
	Kind       string // what the column is, for the table
	Max        bool   // take its maximum, not its sum
	Compressed int64  // its bytes in the files
}

// ScanColumns are the columns timed: a sorted key, a key in no order,
// plain doubles, doubles of few values (dictionary pages), a date, a
// string of three values and free text.
var ScanColumns = []ScanColumn{
	{Name: "l_orderkey", Kind: "int32 key, sorted"},
	{Name: "l_partkey", Kind: "int32 key, random"},
	{Name: "l_extendedprice", Kind: "double, plain"},
	{Name: "l_discount", Kind: "double, 11 values"},
	{Name: "l_shipdate", Kind: "date", Max: true},
	{Name: "l_returnflag", Kind: "string, 3 values", Max: true},
	{Name: "l_comment", Kind: "string, free text", Max: true},
}

// Scans returns ScanColumns with the bytes each takes in dir's lineitem
// files, read from their footers.
func Scans(dir string) ([]ScanColumn, error) {
	pattern, err := findTable(dir, "lineitem")
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("tpch: no lineitem files match %s", pattern)
	}
	out := append([]ScanColumn(nil), ScanColumns...)
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		info, err := parquet.Inspect(f, st.Size(), path)
		f.Close()
		if err != nil {
			return nil, err
		}
		for i := range out {
			j := info.Schema.FieldIndices(out[i].Name)
			if len(j) != 1 {
				return nil, fmt.Errorf("tpch: %s has no column %s", path, out[i].Name)
			}
			for _, g := range info.RowGroups {
				out[i].Compressed += g.Columns[j[0]].Compressed
			}
		}
	}
	return out, nil
}

// Frame is the scan of c over the tables' lineitem: one row, its sum or
// maximum.
func (c ScanColumn) Frame(t *Tables) *dataframe.Frame {
	agg := dataframe.Sum(c.Name)
	if c.Max {
		agg = dataframe.Max(c.Name)
	}
	return t.Lineitem.Select(c.Name).Agg(agg)
}
