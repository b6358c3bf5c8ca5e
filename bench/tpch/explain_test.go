package tpch_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duskdata/dusk/bench/tpch"
	"github.com/duskdata/dusk/dataframe"
)

var update = flag.Bool("update", false, "rewrite the golden plans in testdata/plans")

// TestPlansSF1 checks the optimized plans of q1, q3, q9 and q18 on the SF1
// files against testdata/plans (go test -update rewrites them): each reads
// only the columns it uses, its date and string filters in the reader. The
// plans of their SQL texts are kept beside them (sql-qN.txt), to be read
// against the dataframe's.
func TestPlansSF1(t *testing.T) {
	if testing.Short() {
		t.Skip("generates TPC-H SF1")
	}
	tables, err := tpch.Open(sf1(t))
	if err != nil {
		t.Fatal(err)
	}
	sc := tables.SQL()
	for _, name := range []string{"q1", "q3", "q9", "q18", "sql-q1", "sql-q3", "sql-q9", "sql-q18"} {
		var f *dataframe.Frame
		if id, ok := strings.CutPrefix(name, "sql-"); ok {
			text, err := tpch.SQLText(id)
			if err != nil {
				t.Fatal(err)
			}
			f = sc.Query(text)
		} else {
			var err error
			if f, err = tpch.QueryNamed(name).Build(context.Background(), tables); err != nil {
				t.Fatal(err)
			}
		}
		got := f.Explain()
		id := name
		path := filepath.Join("testdata", "plans", name+".txt")
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s plan:\n%s\nwant (%s):\n%s", id, got, path, want)
		}
	}
}
