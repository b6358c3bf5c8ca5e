package tpch_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/duskdata/dusk/bench/tpch"
)

var update = flag.Bool("update", false, "rewrite the golden plans in testdata/plans")

// TestPlansSF1 checks the optimized plans of q1, q3, q9 and q18 on the SF1
// files against testdata/plans (go test -update rewrites them): each reads
// only the columns it uses, its date and string filters in the reader.
func TestPlansSF1(t *testing.T) {
	if testing.Short() {
		t.Skip("generates TPC-H SF1")
	}
	tables, err := tpch.Open(sf1(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"q1", "q3", "q9", "q18"} {
		f, err := tpch.QueryNamed(id).Build(context.Background(), tables)
		if err != nil {
			t.Fatal(err)
		}
		got := f.Explain()
		path := filepath.Join("testdata", "plans", id+".txt")
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
