package dataframe

import (
	"testing"

	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/cockroachdb/datadriven"
)

// explainCases are the plans testdata/explain.txt optimizes, by name: x is
// testdata/x.csv (id, a, b, s) in one partition, y is testdata/y.csv (id,
// c, s), and big is x read in blocks as a frame too large to broadcast.
var explainCases = map[string]func(x, y, big *Frame) *Frame{
	"select":           func(x, _, _ *Frame) *Frame { return x.Select("s", "id") },
	"unused-assign":    func(x, _, _ *Frame) *Frame { return x.WithColumn("z", Col("a").Mul(2)).Select("id") },
	"used-assign":      func(x, _, _ *Frame) *Frame { return x.WithColumn("z", Col("a").Mul(Col("b"))).Select("id", "z") },
	"filter-to-reader": func(x, _, _ *Frame) *Frame { return x.Filter(Col("a").Gt(15)).Select("id") },
	"filter-folded": func(x, _, _ *Frame) *Frame {
		return x.Filter(Col("a").Gt(Lit(10).Add(5)).And(Col("b").Lt(Col("a")))).Select("id")
	},
	"count-reads-filter-column": func(x, _, _ *Frame) *Frame {
		return x.Filter(Col("b").Gt(2)).Agg(Size().As("n"))
	},
	"filter-below-assign": func(x, _, _ *Frame) *Frame {
		return x.WithColumn("z", Col("a").Add(1)).Filter(Col("b").Lt(3).And(Col("z").Gt(2)))
	},
	"filter-into-inner-join": func(_, y, big *Frame) *Frame {
		return big.Join(y, "inner", "id").Filter(Col("a").Gt(1).And(Col("c").Lt(500)).And(Col("id").Ne(2)))
	},
	"filter-into-left-join": func(_, y, big *Frame) *Frame {
		return big.Join(y, "left", "id").Filter(Col("a").Gt(1).And(Col("c").Lt(500)))
	},
	"or-across-join": func(_, y, big *Frame) *Frame {
		return big.Join(y, "inner", "id").Filter(Col("a").Gt(1).And(Col("c").Lt(500)).Or(Col("a").Lt(0).And(Col("c").Gt(900)).And(Col("b").Eq(2))))
	},
	"or-across-join-one-side": func(_, y, big *Frame) *Frame {
		return big.Join(y, "inner", "id").Filter(Col("a").Gt(1).And(Col("c").Lt(500)).Or(Col("c").Gt(900)))
	},
	"filter-on-group-keys": func(x, _, _ *Frame) *Frame {
		return x.GroupBy("s").Agg(Sum("a")).Filter(Col("s").Eq("x").And(Col("sum(a)").Gt(0)))
	},
	"filter-keeps": func(x, _, _ *Frame) *Frame {
		return x.GroupBy("s").Agg(Sum("a"), Sum("b")).Filter(Col("sum(b)").Gt(0)).Select("s", "sum(a)")
	},
	"join-columns": func(_, y, big *Frame) *Frame { return big.Join(y, "inner", "id").Select("a", "c") },
	"broadcast":    func(_, y, big *Frame) *Frame { return big.Join(y, "left", "id") },
	"shuffle-join": func(_, y, big *Frame) *Frame {
		return big.Merge(y, MergeOptions{How: "outer", On: []string{"id"}, BroadcastBytes: -1})
	},
	"co-partitioned": func(_, y, big *Frame) *Frame {
		return big.Shuffle(4, "id").Merge(y.Shuffle(4, "id"), MergeOptions{On: []string{"id"}, BroadcastBytes: -1})
	},
	"shuffle-twice": func(_, _, big *Frame) *Frame { return big.Shuffle(4, "id").Filter(Col("a").Gt(0)).Shuffle(4, "id") },
	"split-out-then-median": func(_, _, big *Frame) *Frame {
		return big.GroupBy("id").SplitOut(4).Agg(Sum("a")).GroupBy("id").SplitOut(4).Agg(Median("sum(a)"))
	},
	"group-after-join": func(_, _, big *Frame) *Frame {
		return big.Rename(map[string]string{"id": "xid"}).
			Merge(big.Select("id", "b"), MergeOptions{LeftOn: []string{"xid"}, RightOn: []string{"id"}, BroadcastBytes: -1}).
			GroupBy("id", "s").Agg(Sum("a"))
	},
	"sort":  func(_, _, big *Frame) *Frame { return big.SortValues([]string{"a", "b"}, false, true).Select("id") },
	"dedup": func(_, _, big *Frame) *Frame { return big.DropDuplicates("s").Select("id") },
	"topn":  func(_, _, big *Frame) *Frame { return big.NLargest(2, "a").Select("s") },
}

// TestExplain checks the optimizer's rewrites against testdata/explain.txt;
// -rewrite regenerates it. Directive: "explain <case>".
func TestExplain(t *testing.T) {
	x := ReadCSV("testdata/x.csv")
	y := ReadCSV("testdata/y.csv")
	big := ReadCSV("testdata/x.csv", CSVOptions{BlockSize: 16})
	for _, f := range []*Frame{x, y, big} {
		if f.Err() != nil {
			t.Fatal(f.Err())
		}
	}
	big.plan.(*plan.Source).Bytes = 1 << 40
	datadriven.RunTest(t, "testdata/explain.txt", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "explain" || len(d.CmdArgs) != 1 {
			d.Fatalf(t, "want: explain <case>")
		}
		build, ok := explainCases[d.CmdArgs[0].Key]
		if !ok {
			d.Fatalf(t, "no case %q", d.CmdArgs[0].Key)
		}
		return build(x, y, big).Explain()
	})
}
