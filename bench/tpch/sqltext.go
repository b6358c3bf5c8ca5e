package tpch

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/dataframe/sql"
)

// queriesSQL are TPC-H's own query texts, with the validation parameters,
// as DuckDB's runner (duckdb/run.mjs) reads them too.
//
//go:embed duckdb/queries.sql
var queriesSQL string

// SQLText is query id's text ("q1" … "q22").
func SQLText(id string) (string, error) {
	var cur string
	var b strings.Builder
	for _, line := range strings.Split(queriesSQL, "\n") {
		if strings.HasPrefix(line, "-- q") {
			if cur == id {
				break
			}
			cur = strings.TrimPrefix(line, "-- ")
			continue
		}
		if cur == id && strings.TrimSpace(line) != "" {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("tpch: no query text for %q", id)
	}
	return b.String(), nil
}

// SQL is a SQL context holding the eight tables by their TPC-H names.
func (t *Tables) SQL() *sql.Context {
	return sql.NewContext(map[string]*dataframe.Frame{
		"lineitem": t.Lineitem, "orders": t.Orders, "partsupp": t.Partsupp, "part": t.Part,
		"customer": t.Customer, "supplier": t.Supplier, "nation": t.Nation, "region": t.Region,
	})
}
