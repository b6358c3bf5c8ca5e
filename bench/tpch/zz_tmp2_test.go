package tpch_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/duskdata/dusk/bench/tpch"
)

func TestTmpGraph(t *testing.T) {
	tables, err := tpch.Open(dataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	sc := tables.SQL()
	for _, id := range strings.Split(os.Getenv("QS"), ",") {
		text, _ := tpch.SQLText(id)
		for _, sql := range []bool{true, false} {
			f := sc.Query(text)
			if !sql {
				f, _ = tpch.QueryNamed(id).Build(context.Background(), tables)
			}
			g, _, err := f.Graph()
			if err != nil {
				t.Fatal(err)
			}
			ops := map[string]int{}
			for _, task := range g.Tasks() {
				ops[task.Op]++
			}
			var s []string
			for k, v := range ops {
				s = append(s, fmt.Sprintf("%s=%d", k, v))
			}
			sort.Strings(s)
			fmt.Println(id, sql, s)
		}
	}
}

func dataDir(t *testing.T) string {
	if d := os.Getenv("TPCH_DIR"); d != "" {
		return d
	}
	return sf1(t)
}
