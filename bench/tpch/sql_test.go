package tpch_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duskdata/dusk/bench/tpch"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/dataframe/sql"
)

// sqlTexts are the 22 query texts of duckdb/queries.sql (TPC-H's own, with
// the validation parameters), by query.
func sqlTexts(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("duckdb", "queries.sql"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var id string
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "-- q"):
			id = strings.TrimPrefix(line, "-- ")
		case strings.TrimSpace(line) != "" && id != "":
			out[id] += line + "\n"
		}
	}
	return out
}

// sqlQueries are the texts the SQL front end binds so far.
var sqlQueries = []string{"q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9", "q10", "q11", "q12", "q13", "q14", "q15", "q16", "q17", "q18", "q19", "q20", "q21", "q22"}

// TestSQLAnswersSF1 runs TPC-H's own texts through the SQL front end on
// the official SF1 data and checks every answer against TPC-H's.
func TestSQLAnswersSF1(t *testing.T) {
	if testing.Short() {
		t.Skip("generates TPC-H SF1")
	}
	dir := sf1(t)
	ctx := testClient(t)
	tables, err := tpch.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	sc := sql.NewContext(map[string]*dataframe.Frame{
		"lineitem": tables.Lineitem, "orders": tables.Orders, "partsupp": tables.Partsupp, "part": tables.Part,
		"customer": tables.Customer, "supplier": tables.Supplier, "nation": tables.Nation, "region": tables.Region,
	})
	texts := sqlTexts(t)
	for _, id := range sqlQueries {
		t.Run(id, func(t *testing.T) {
			q := queryByID(id)
			f := sc.Query(texts[id])
			if err := f.Err(); err != nil {
				t.Fatal(err)
			}
			tab, err := f.Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tab.Release()
			got, err := tpch.AnswerRows(q, tab)
			if err != nil {
				t.Fatal(err)
			}
			_, want, err := tpch.ReadAnswer(filepath.Join("testdata", "sf1-answers", tpch.AnswerFile(id)))
			if err != nil {
				t.Fatal(err)
			}
			if err := tpch.CompareAnswer(q, got, want); err != nil {
				t.Error(err)
			}
		})
	}
}

func queryByID(id string) *tpch.Query {
	for i := range tpch.Queries {
		if tpch.Queries[i].ID == id {
			return &tpch.Queries[i]
		}
	}
	return nil
}
