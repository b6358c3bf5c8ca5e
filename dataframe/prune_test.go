package dataframe

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/io/parquet"
)

// TestMayMatchNeverSkipsAMatch checks mayMatch against rows: for random
// units of rows and random predicates, a unit with a row where the
// predicate holds is never ruled out, and simple ruled-out cases are.
func TestMayMatchNeverSkipsAMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	preds := func() Expr {
		v := r.IntN(40) - 5
		switch r.IntN(9) {
		case 0:
			return Col("a").Eq(v)
		case 1:
			return Col("a").Ne(v)
		case 2:
			return Col("a").Lt(v)
		case 3:
			return Col("a").Le(float64(v) + 0.5)
		case 4:
			return Col("a").Gt(v).And(Col("s").Ge("m"))
		case 5:
			return Col("a").Ge(v).Or(Col("s").Eq("q"))
		case 6:
			return Col("a").IsIn(v, v+3)
		case 7:
			return Col("a").IsNull()
		}
		return Lit(v).Lt(Col("a")) // operands swapped
	}
	for trial := 0; trial < 5000; trial++ {
		n := 1 + r.IntN(6)
		as := make([]*int64, n)
		ss := make([]string, n)
		for i := range as {
			if r.IntN(5) > 0 {
				v := int64(r.IntN(30))
				as[i] = &v
			}
			ss[i] = string(rune('a' + r.IntN(26)))
		}
		rng := expr.Range{}
		for _, a := range as {
			if a == nil {
				rng.Nulls = true
				continue
			}
			if rng.Min == nil || *a < rng.Min.(int64) {
				rng.Min = *a
			}
			if rng.Max == nil || *a > rng.Max.(int64) {
				rng.Max = *a
			}
		}
		rng.AllNull = rng.Min == nil
		srng := expr.Range{Min: ss[0], Max: ss[0]}
		for _, s := range ss {
			srng.Min, srng.Max = min(srng.Min.(string), s), max(srng.Max.(string), s)
		}
		ranges := func(c string) (expr.Range, bool) {
			if c == "a" {
				return rng, true
			}
			return srng, true
		}
		p := preds()
		any := false
		for i := range as {
			if holds(p.n, as[i], ss[i]) {
				any = true
			}
		}
		if any && !expr.MayMatch(p.n, ranges) {
			t.Fatalf("%s skipped a unit with a matching row: a=%v s=%v", p, deref(as), ss)
		}
	}
	lo := func(c string) (expr.Range, bool) { return expr.Range{Min: int64(10), Max: int64(20)}, c == "a" }
	for _, c := range []struct {
		p    Expr
		want bool
	}{
		{Col("a").Gt(20), false}, {Col("a").Ge(20), true}, {Col("a").Lt(10), false}, {Col("a").Eq(15.5), true},
		{Col("a").IsIn(1, 2, 30), false}, {Col("a").IsNull(), false}, {Col("b").Eq(1), true},
		{Col("a").Gt(30).Or(Col("b").Eq(1)), true}, {Col("a").Add(1).Gt(100), true}, {Col("a").Eq(nil), false},
	} {
		if got := expr.MayMatch(c.p.n, lo); got != c.want {
			t.Errorf("%s on a in [10, 20]: mayMatch = %v, want %v", c.p, got, c.want)
		}
	}
}

// holds evaluates the test predicates on one row, as SQL does: a
// comparison with null is not true.
func holds(e *expr.Node, a *int64, s string) bool {
	val := func(n *expr.Node) (float64, string, bool) {
		switch {
		case n.Op == "col" && n.Name == "a":
			if a == nil {
				return 0, "", false
			}
			return float64(*a), "", true
		case n.Op == "col":
			return 0, s, true
		}
		switch v := n.Lit.Value().(type) {
		case int64:
			return float64(v), "", true
		case float64:
			return v, "", true
		case string:
			return 0, v, true
		}
		return 0, "", false
	}
	switch e.Op {
	case "and":
		return holds(e.Args[0], a, s) && holds(e.Args[1], a, s)
	case "or":
		return holds(e.Args[0], a, s) || holds(e.Args[1], a, s)
	case "isnull":
		return a == nil
	case "isin":
		for _, v := range e.Values {
			if a != nil && float64(*a) == float64(v.I) {
				return true
			}
		}
		return false
	case "==", "!=", "<", "<=", ">", ">=":
		x, xs, ok1 := val(e.Args[0])
		y, ys, ok2 := val(e.Args[1])
		if !ok1 || !ok2 {
			return false
		}
		c := 0
		switch {
		case xs != "" || ys != "":
			c = compareStrings(xs, ys)
		case x < y:
			c = -1
		case x > y:
			c = 1
		}
		switch e.Op {
		case "==":
			return c == 0
		case "!=":
			return c != 0
		case "<":
			return c < 0
		case "<=":
			return c <= 0
		case ">":
			return c > 0
		}
		return c >= 0
	}
	return true
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func deref(ps []*int64) []any {
	out := make([]any, len(ps))
	for i, p := range ps {
		if p != nil {
			out[i] = *p
		}
	}
	return out
}

// TestFilterSkipsRowGroupsInAPartition reads one file of ten row groups of
// a sorted column as one partition: a filter on the column leaves the read
// only the row groups whose statistics allow a match, not the whole file.
func TestFilterSkipsRowGroupsInAPartition(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sorted.parquet")
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := range int64(1000) {
		b.Append(i)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	rec := array.NewRecord(schema, []arrow.Array{b.NewArray()}, 1000)
	defer rec.Release()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := parquet.Write(out, schema, []arrow.Record{rec}, parquet.WriteOptions{RowGroupRows: 100}); err != nil {
		t.Fatal(err)
	}
	out.Close()
	f := ReadParquet(path, ParquetOptions{PartitionSize: 1 << 30}).Filter(Col("k").Ge(250).And(Col("k").Lt(420)))
	src, ok := plan.Optimize(f.plan).(*plan.Source)
	if !ok || len(src.Args) != 1 {
		t.Fatalf("want one partition read with the filter pushed in, got %T", plan.Optimize(f.plan))
	}
	var a ops.FileArgs
	if err := json.Unmarshal(src.Args[0], &a); err != nil {
		t.Fatal(err)
	}
	if len(a.Slices) != 1 || !slices.Equal(a.Slices[0].Units, []int{2, 3, 4}) {
		t.Fatalf("read %+v, want row groups 2, 3 and 4 of the file", a.Slices)
	}
}

// TestNullTestsTheStatisticsProve reads two files, one whose column holds
// nulls: a "not null" filter is dropped from the read of the other, where
// the statistics prove it, and kept where they do not (TestFilter's
// "not isnull(I)" checks the rows either way).
func TestNullTestsTheStatisticsProve(t *testing.T) {
	dir := t.TempDir()
	one, two := int64(1), int64(2)
	full := writeKeys(t, dir, "full.parquet", []*int64{&one, &two})
	holed := writeKeys(t, dir, "holed.parquet", []*int64{&one, nil, &two})
	for _, c := range []struct {
		path string
		kept bool
	}{{full, false}, {holed, true}} {
		f := ReadParquet(c.path).Filter(Col("k").NotNull().And(Col("k").Gt(0)))
		if _, ok := plan.Optimize(f.plan).(*plan.Source); !ok {
			t.Fatalf("%s: want the filter pushed into the read, got %s", c.path, f.Explain())
		}
		if got := strings.Contains(f.Explain(), "isnull"); got != c.kept {
			t.Errorf("%s: read %q, want its null test kept: %v", c.path, f.Explain(), c.kept)
		}
	}
}

// writeKeys writes vals (nil: null) as a Parquet file's column k.
func writeKeys(t *testing.T, dir, name string, vals []*int64) string {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(*v)
		}
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	rec := array.NewRecord(schema, []arrow.Array{b.NewArray()}, int64(len(vals)))
	defer rec.Release()
	path := filepath.Join(dir, name)
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := parquet.Write(out, schema, []arrow.Record{rec}, parquet.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return path
}

// TestNeverNull checks which columns the statistics prove free of nulls:
// a file's without nulls, through filters, renames and inner joins, but
// not one with nulls, one computed, a frame's without statistics, or the
// side an outer join fills.
func TestNeverNull(t *testing.T) {
	dir := t.TempDir()
	one, two := int64(1), int64(2)
	full := ReadParquet(writeKeys(t, dir, "full.parquet", []*int64{&one, &two}))
	holed := ReadParquet(writeKeys(t, dir, "holed.parquet", []*int64{&one, nil}))
	other := full.Rename(map[string]string{"k": "j"})
	for _, c := range []struct {
		name string
		f    *Frame
		col  string
		want bool
	}{
		{"file", full, "k", true},
		{"file with nulls", holed, "k", false},
		{"filtered, renamed", full.Filter(Col("k").Gt(0)).Rename(map[string]string{"k": "x"}), "x", true},
		{"computed", full.WithColumn("k", Col("k").Add(1)), "k", false},
		{"inner join", full.Merge(other, MergeOptions{LeftOn: []string{"k"}, RightOn: []string{"j"}}), "j", true},
		{"left join's right side", full.Merge(other, MergeOptions{How: Left, LeftOn: []string{"k"}, RightOn: []string{"j"}}), "j", false},
		{"no statistics", FromRecords([]struct{ K int64 }{{1}}, 1), "K", false},
		{"no such column", full, "z", false},
	} {
		if got := c.f.NeverNull(c.col); got != c.want {
			t.Errorf("%s: NeverNull(%s) = %v, want %v", c.name, c.col, got, c.want)
		}
	}
}
