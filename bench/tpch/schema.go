// Package tpch is the TPC-H benchmark in Dusk's dataframe API: its data
// (made with the Go port of the official generator, written as Parquet),
// its 22 queries as Go functions over frames, and its answers.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, a transport: its
// queries are written as a user writes them.
package tpch

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
)

// kind is what a column holds, which decides the Arrow types a table's
// file may give it and the one the queries see.
type kind uint8

const (
	key   kind = iota // an identifier: int32 or int64, read as int32 where every table's are, else int64
	count             // a small whole number: int32 or int64, read as written
	money             // DOUBLE or DECIMAL(p, s), read as float64
	date              // DATE
	text              // a string
)

// kinds describes each kind once: the type it is written with (and the
// queries read it as) and the types a file may hold it as.
var kinds = [...]struct {
	name    string
	written arrow.DataType
	accepts func(arrow.DataType) bool
}{
	// Keys are written as int32 where they fit (keyType), as DuckDB's
	// TPC-H schema has them: the Parquet pages of random int64 keys are
	// half zero bytes, which zstd turns into a match every few bytes that
	// Go's decoder takes 20 ns each to replay (l_partkey of 2^20 rows: 27
	// ms as int64, 3.4 as int32, stored as it is).
	key:   {"an int32 or int64 key", arrow.PrimitiveTypes.Int32, isInt},
	count: {"an int32 or int64", arrow.PrimitiveTypes.Int32, isInt},
	money: {"a DOUBLE or DECIMAL", kernel.Float64, func(t arrow.DataType) bool {
		return t.ID() == arrow.FLOAT64 || t.ID() == arrow.FLOAT32 || t.ID() == arrow.DECIMAL128
	}},
	date: {"a DATE", arrow.FixedWidthTypes.Date32, func(t arrow.DataType) bool { return t.ID() == arrow.DATE32 }},
	text: {"a string", kernel.String, func(t arrow.DataType) bool {
		switch t.ID() {
		case arrow.STRING, arrow.LARGE_STRING, arrow.DICTIONARY:
			return true
		}
		return false
	}},
}

func isInt(t arrow.DataType) bool { return t.ID() == arrow.INT32 || t.ID() == arrow.INT64 }

// column is one column of a TPC-H table.
type column struct {
	name string
	kind kind
}

// table is one of the eight TPC-H tables: its columns in the standard
// order, and its rows at scale factor 1.
type table struct {
	name    string
	columns []column
	rows    int64 // at SF1; nation and region do not grow with the scale
	fixed   bool  // nation and region: the same rows at every scale
}

// Tables are the eight TPC-H tables, with the standard schema.
var tables = []table{
	{"lineitem", []column{
		{"l_orderkey", key}, {"l_partkey", key}, {"l_suppkey", key}, {"l_linenumber", count},
		{"l_quantity", money}, {"l_extendedprice", money}, {"l_discount", money}, {"l_tax", money},
		{"l_returnflag", text}, {"l_linestatus", text},
		{"l_shipdate", date}, {"l_commitdate", date}, {"l_receiptdate", date},
		{"l_shipinstruct", text}, {"l_shipmode", text}, {"l_comment", text},
	}, 6_001_215, false},
	{"orders", []column{
		{"o_orderkey", key}, {"o_custkey", key}, {"o_orderstatus", text}, {"o_totalprice", money},
		{"o_orderdate", date}, {"o_orderpriority", text}, {"o_clerk", text}, {"o_shippriority", count},
		{"o_comment", text},
	}, 1_500_000, false},
	{"partsupp", []column{
		{"ps_partkey", key}, {"ps_suppkey", key}, {"ps_availqty", count}, {"ps_supplycost", money},
		{"ps_comment", text},
	}, 800_000, false},
	{"part", []column{
		{"p_partkey", key}, {"p_name", text}, {"p_mfgr", text}, {"p_brand", text}, {"p_type", text},
		{"p_size", count}, {"p_container", text}, {"p_retailprice", money}, {"p_comment", text},
	}, 200_000, false},
	{"customer", []column{
		{"c_custkey", key}, {"c_name", text}, {"c_address", text}, {"c_nationkey", key},
		{"c_phone", text}, {"c_acctbal", money}, {"c_mktsegment", text}, {"c_comment", text},
	}, 150_000, false},
	{"supplier", []column{
		{"s_suppkey", key}, {"s_name", text}, {"s_address", text}, {"s_nationkey", key},
		{"s_phone", text}, {"s_acctbal", money}, {"s_comment", text},
	}, 10_000, false},
	{"nation", []column{
		{"n_nationkey", key}, {"n_name", text}, {"n_regionkey", key}, {"n_comment", text},
	}, 25, true},
	{"region", []column{
		{"r_regionkey", key}, {"r_name", text}, {"r_comment", text},
	}, 5, true},
}

// TableNames are the eight tables' names.
func TableNames() []string {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.name
	}
	return names
}

func tableNamed(name string) *table {
	i := slices.IndexFunc(tables, func(t table) bool { return t.name == name })
	if i < 0 {
		return nil
	}
	return &tables[i]
}

// Rows is the table's row count at scale factor sf, as dbgen counts it:
// below 1, the base count in whole thousandths of sf, one row at least.
func (t *table) Rows(sf float64) int64 {
	switch {
	case t.fixed:
		return t.rows
	case sf < 1:
		return max(int64(math.Round(sf*1000))*t.rows/1000, 1)
	}
	return t.rows * int64(sf)
}

// schema is the Arrow schema the generator writes the table with at scale
// factor sf.
func (t *table) schema(sf float64) *arrow.Schema {
	fields := make([]arrow.Field, len(t.columns))
	for i, c := range t.columns {
		fields[i] = arrow.Field{Name: c.name, Type: kinds[c.kind].written}
		if c.kind == key {
			fields[i].Type = keyType(sf)
		}
	}
	return arrow.NewSchema(fields, nil)
}

// keyType is the type keys are written as at scale factor sf: int32 while
// the largest, an order key of up to 6,000,000 sf, fits (sf 357 and less).
func keyType(sf float64) arrow.DataType {
	if sf*6_000_000 <= math.MaxInt32 {
		return kinds[key].written
	}
	return kernel.Int64
}

// check compares a file's schema with the table's: every column there, of
// a type its kind accepts.
func (t *table) check(s *arrow.Schema, where string) error {
	var missing []string
	for _, c := range t.columns {
		i := s.FieldIndices(c.name)
		if len(i) == 0 {
			missing = append(missing, c.name)
			continue
		}
		if got := s.Field(i[0]).Type; !kinds[c.kind].accepts(got) {
			return fmt.Errorf("tpch: %s column %s is %s, expected %s", where, c.name, got, kinds[c.kind].name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("tpch: %s lacks column(s) %s", where, strings.Join(missing, ", "))
	}
	return nil
}
