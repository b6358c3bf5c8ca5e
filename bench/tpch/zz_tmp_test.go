package tpch_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/duskdata/dusk/bench/tpch"
)

func TestTmpPlans(t *testing.T) {
	tables, err := tpch.Open(dataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	sc := tables.SQL()
	var b strings.Builder
	for _, id := range strings.Split(os.Getenv("QS"), ",") {
		text, _ := tpch.SQLText(id)
		f := sc.Query(text)
		g, err := tpch.QueryNamed(id).Build(context.Background(), tables)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("==== " + id + " SQL\n" + f.Explain() + "\n==== " + id + " dataframe\n" + g.Explain() + "\n")
	}
	os.WriteFile("/tmp/plans.txt", []byte(b.String()), 0o644)
}
