package dataframe_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe"
)

// aggCase is an aggregation, the column it reads (none for size), and
// its result column's name and type.
type aggCase struct {
	agg  dataframe.Agg
	fn   string
	col  string
	name string
	typ  string
}

// allAggs are every aggregation over the int column I and the float column F.
var allAggs = []aggCase{
	{dataframe.Sum("I"), "sum", "I", "sum(I)", "int64"},
	{dataframe.Mean("I"), "mean", "I", "mean(I)", "float64"},
	{dataframe.Count("I"), "count", "I", "count(I)", "int64"},
	{dataframe.Min("I"), "min", "I", "min(I)", "int64"},
	{dataframe.Max("I"), "max", "I", "max(I)", "int64"},
	{dataframe.Std("I"), "std", "I", "std(I)", "float64"},
	{dataframe.Var("I"), "var", "I", "var(I)", "float64"},
	{dataframe.Size(), "size", "", "size", "int64"},
	{dataframe.Sum("F"), "sum", "F", "sum(F)", "float64"},
	{dataframe.Mean("F"), "mean", "F", "mean(F)", "float64"},
	{dataframe.Count("F"), "count", "F", "count(F)", "int64"},
	{dataframe.Min("F"), "min", "F", "min(F)", "float64"},
	{dataframe.Max("F"), "max", "F", "max(F)", "float64"},
	{dataframe.Std("F").As("sd"), "std", "F", "sd", "float64"},
	{dataframe.Var("F").As("variance of F"), "var", "F", "variance of F", "float64"},
	{dataframe.Count("S").As("strings"), "count", "S", "strings", "int64"},
	{dataframe.Min("S"), "min", "S", "min(S)", "utf8"},
	{dataframe.Max("S").As("last S"), "max", "S", "last S", "utf8"},
}

// column returns the row's value of a testColumns column.
func column(r testRow, name string) any {
	return r.values()[slices.Index(testColumns, name)]
}

// refAgg aggregates one group's values of a column (of int64s when isInt)
// the way pandas does: nulls skipped, sum 0 when there is nothing to add,
// mean, min and max null then, var and std (ddof=1) null below two values.
func refAgg(fn string, vals []any, isInt bool) any {
	var ints []int64
	var floats []float64
	var strs []string
	for _, v := range vals {
		switch v := v.(type) {
		case int64:
			ints = append(ints, v)
			floats = append(floats, float64(v))
		case float64:
			floats = append(floats, v)
		case string:
			strs = append(strs, v)
			floats = append(floats, 0) // counted, and ordered as strings
		case bool:
			floats = append(floats, 0) // only counted
		}
	}
	n := len(floats)
	switch fn {
	case "size":
		return int64(len(vals))
	case "count":
		return int64(n)
	case "sum":
		if isInt {
			var s int64
			for _, v := range ints {
				s += v
			}
			return s
		}
		s := 0.0
		for _, v := range floats {
			s += v
		}
		return s
	case "mean":
		if n == 0 {
			return nil
		}
		s := 0.0
		for _, v := range floats {
			s += v
		}
		return s / float64(n)
	case "min", "max":
		switch {
		case n == 0:
			return nil
		case len(strs) > 0 && fn == "min":
			return slices.Min(strs)
		case len(strs) > 0:
			return slices.Max(strs)
		case isInt && fn == "min":
			return slices.Min(ints)
		case isInt:
			return slices.Max(ints)
		case fn == "min":
			return slices.Min(floats)
		}
		return slices.Max(floats)
	case "var", "std":
		if n < 2 {
			return nil
		}
		mean := 0.0
		for _, v := range floats {
			mean += v
		}
		mean /= float64(n)
		ss := 0.0
		for _, v := range floats {
			ss += (v - mean) * (v - mean)
		}
		v := ss / float64(n-1)
		if fn == "std" {
			return math.Sqrt(v)
		}
		return v
	}
	panic("refAgg " + fn)
}

// refGroupBy groups rows by keys, dropping rows with a null key, and
// returns a row per group (keys, then aggregations), sorted by the keys.
func refGroupBy(rows []testRow, keys []string, aggs []aggCase) [][]any {
	type group struct {
		key  []any
		rows []testRow
	}
	groups := map[string]*group{}
	for _, r := range rows {
		key := make([]any, len(keys))
		null := false
		for i, k := range keys {
			key[i] = column(r, k)
			null = null || key[i] == nil
		}
		if null {
			continue
		}
		id := fmt.Sprintf("%#v", key)
		g := groups[id]
		if g == nil {
			g = &group{key: key}
			groups[id] = g
		}
		g.rows = append(g.rows, r)
	}
	var out [][]any
	for _, g := range groups {
		row := append([]any(nil), g.key...)
		for _, a := range aggs {
			vals := make([]any, len(g.rows))
			for i, r := range g.rows {
				if a.col != "" {
					vals[i] = column(r, a.col)
				}
			}
			isInt := a.col != "" && testTypes[slices.Index(testColumns, a.col)] == "int64"
			row = append(row, refAgg(a.fn, vals, isInt))
		}
		out = append(out, row)
	}
	slices.SortFunc(out, func(a, b []any) int {
		for i := range keys {
			if c := compareKey(a[i], b[i]); c != 0 {
				return c
			}
		}
		return 0
	})
	return out
}

func compareKey(a, b any) int {
	switch a := a.(type) {
	case int64:
		return cmp.Compare(a, b.(int64))
	case string:
		return cmp.Compare(a, b.(string))
	case bool:
		x, y := 0, 0
		if a {
			x = 1
		}
		if b.(bool) {
			y = 1
		}
		return cmp.Compare(x, y)
	}
	panic(fmt.Sprintf("compareKey %T", a))
}

// allAggsColumns are the names and types of the columns of a grouping by
// keys with allAggs.
func allAggsColumns(keys []string) (cols, types []string) {
	for _, k := range keys {
		cols = append(cols, k)
		types = append(types, testTypes[slices.Index(testColumns, k)])
	}
	for _, a := range allAggs {
		cols = append(cols, a.name)
		types = append(types, a.typ)
	}
	return cols, types
}

func TestGroupBy(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(6, 600)
	aggs := make([]dataframe.Agg, len(allAggs))
	for i, a := range allAggs {
		aggs[i] = a.agg
	}
	for _, keys := range [][]string{{"K"}, {"KI"}, {"B"}, {"K", "KI"}, {"B", "K"}, {"KI", "B"}} {
		cols, types := allAggsColumns(keys)
		want := refGroupBy(rows, keys, allAggs)
		for _, tf := range eachFrame(t, rows) {
			t.Run(fmt.Sprintf("%v/%s", keys, tf.name), func(t *testing.T) {
				f := tf.frame.GroupBy(keys...).Agg(aggs...)
				if f.NumPartitions() != 1 {
					t.Errorf("%d partitions, want 1", f.NumPartitions())
				}
				checkTable(t, f, compute(t, ctx, f), cols, types, want, 1e-9)
			})
		}
	}
}

// TestGroupByEdgeGroups checks groups the generated data has by design:
// one whose values are all null, and one with a single value.
func TestGroupByEdgeGroups(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(7, 300)
	aggs := []dataframe.Agg{dataframe.Sum("I"), dataframe.Sum("F"), dataframe.Mean("I"), dataframe.Count("I"),
		dataframe.Size(), dataframe.Min("F"), dataframe.Max("I"), dataframe.Std("F"), dataframe.Var("I")}
	f := arrowFrame(t, rows, layouts(len(rows))[2].sizes).Filter(col("K").IsIn("zz", "solo")).GroupBy("K").Agg(aggs...)
	zz := 0
	for _, r := range rows {
		if r.K != nil && *r.K == "zz" {
			zz++
		}
	}
	if zz < 2 {
		t.Fatalf("the data has %d rows in group zz; want several", zz)
	}
	want := [][]any{
		{"solo", int64(7), 2.5, 7.0, int64(1), int64(1), 2.5, int64(7), nil, nil},
		{"zz", int64(0), 0.0, nil, int64(0), int64(zz), nil, nil, nil, nil},
	}
	checkTable(t, f, compute(t, ctx, f),
		[]string{"K", "sum(I)", "sum(F)", "mean(I)", "count(I)", "size", "min(F)", "max(I)", "std(F)", "var(I)"},
		[]string{"utf8", "int64", "float64", "float64", "int64", "int64", "float64", "int64", "float64", "float64"},
		want, 1e-9)
}

// TestGroupByAfterFilter groups what a filter and a new column leave.
func TestGroupByAfterFilter(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(8, 500)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			f := tf.frame.Filter(col("F").Gt(0).Or(col("B"))).
				WithColumn("I2", col("I").Mul(col("I"))).
				GroupBy("T").Agg(dataframe.Sum("I2"), dataframe.Mean("I2").As("m"), dataframe.Var("G"))
			var want [][]any
			groups := map[string][][]any{} // T -> values of I2, G
			for _, r := range rows {
				if or3(cmp3(r.F, ptr(0.0), ">"), boolOf(r.B)) != triTrue || r.T == nil {
					continue
				}
				var i2 any
				if r.I != nil {
					i2 = *r.I * *r.I
				}
				groups[*r.T] = append(groups[*r.T], []any{i2, val(r.G)})
			}
			keys := make([]string, 0, len(groups))
			for k := range groups {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				var i2s, gs []any
				for _, v := range groups[k] {
					i2s, gs = append(i2s, v[0]), append(gs, v[1])
				}
				want = append(want, []any{k, refAgg("sum", i2s, true), refAgg("mean", i2s, true), refAgg("var", gs, false)})
			}
			checkTable(t, f, compute(t, ctx, f), []string{"T", "sum(I2)", "m", "var(G)"},
				[]string{"utf8", "int64", "float64", "float64"}, want, 1e-9)
		})
	}
}

// TestGroupByEmpty groups frames with no rows: every partition empty, or
// a filter that keeps nothing.
func TestGroupByEmpty(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(9, 100)
	frames := map[string]*dataframe.Frame{
		"empty partitions":  arrowFrame(t, nil, []int{0, 0, 0}),
		"one empty":         arrowFrame(t, nil, []int{0}),
		"filter keeps none": arrowFrame(t, rows, layouts(len(rows))[2].sizes).Filter(col("I").Gt(1000)),
		"csv, header only":  csvFrame(t, nil, []int{0, 0}),
	}
	for name, in := range frames {
		t.Run(name, func(t *testing.T) {
			f := in.GroupBy("K", "KI").Agg(dataframe.Sum("I"), dataframe.Mean("F"), dataframe.Size(), dataframe.Std("I"))
			checkTable(t, f, compute(t, ctx, f), []string{"K", "KI", "sum(I)", "mean(F)", "size", "std(I)"},
				[]string{"utf8", "int64", "int64", "float64", "int64", "float64"}, nil, 0)
		})
	}
}

// TestGroupByManyGroups has more groups than rows per partition, so that
// partial results and their merging carry many groups.
func TestGroupByManyGroups(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(10, 2000)
	aggs := []aggCase{allAggs[0], allAggs[1], allAggs[5], allAggs[7], allAggs[8], allAggs[11]}
	var list []dataframe.Agg
	cols, types := []string{"I", "J"}, []string{"int64", "int64"}
	for _, a := range aggs {
		list = append(list, a.agg)
		cols, types = append(cols, a.name), append(types, a.typ)
	}
	want := refGroupBy(rows, []string{"I", "J"}, aggs)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			f := tf.frame.GroupBy("I", "J").Agg(list...)
			checkTable(t, f, compute(t, ctx, f), cols, types, want, 1e-9)
		})
	}
}

// TestGroupByDistinctKeys groups by a key that is distinct in every row,
// with partitions large enough that partial aggregation is skipped and each
// row's states are made directly (rowStates), nulls included.
func TestGroupByDistinctKeys(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(9, 40000)
	aggs := make([]dataframe.Agg, len(allAggs))
	cols, types := []string{"ID"}, []string{"int64"}
	for i, a := range allAggs {
		aggs[i] = a.agg
		cols = append(cols, a.name)
		types = append(types, a.typ)
	}
	f := arrowFrame(t, rows, []int{20000, 20000}).GroupBy("ID").Agg(aggs...)
	// 40,000 groups are many: the result is split over partitions, unsorted.
	checkTableAnyOrder(t, f, compute(t, ctx, f), cols, types, refGroupBy(rows, []string{"ID"}, allAggs), 1e-9)

	// Columns without nulls, whose states are the columns themselves.
	g := arrowFrame(t, rows, []int{20000, 20000}).
		WithColumn("X", col("ID").Mul(3)).WithColumn("Y", col("ID").Mul(0.5)).
		GroupBy("ID").Agg(dataframe.Sum("X"), dataframe.Min("X"), dataframe.Max("Y"), dataframe.Mean("Y"),
		dataframe.Count("X"), dataframe.Sum("Y"), dataframe.Mean("X"))
	var want [][]any
	for _, r := range rows {
		x, y := r.ID*3, float64(r.ID)*0.5
		want = append(want, []any{r.ID, x, x, y, y, int64(1), y, float64(x)})
	}
	checkTableAnyOrder(t, g, compute(t, ctx, g), []string{"ID", "sum(X)", "min(X)", "max(Y)", "mean(Y)", "count(X)", "sum(Y)", "mean(X)"},
		[]string{"int64", "int64", "int64", "float64", "float64", "int64", "float64", "float64"}, want, 1e-12)
}

// TestGroupByInPlace groups rows already hashed by some of the keys (a
// shuffle by I, then keys I and J; a shuffle by the distinct ID, then keys
// ID and I, whose partitions are large enough to skip pre-aggregation):
// each partition is grouped whole, with no combine across partitions, and
// the groups are the reference's.
func TestGroupByInPlace(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(11, 40000)
	aggs := []aggCase{allAggs[0], allAggs[1], allAggs[5], allAggs[7], allAggs[8], allAggs[11]}
	var list []dataframe.Agg
	for _, a := range aggs {
		list = append(list, a.agg)
	}
	for _, keys := range [][]string{{"I", "J"}, {"ID", "I"}} {
		cols, types := slices.Clone(keys), []string{"int64", "int64"}
		for _, a := range aggs {
			cols, types = append(cols, a.name), append(types, a.typ)
		}
		f := arrowFrame(t, rows, []int{10000, 30000}).Shuffle(2, keys[0]).GroupBy(keys...).Agg(list...)
		if f.NumPartitions() != 2 {
			t.Fatalf("%d partitions, want the shuffle's 2 kept:\n%s", f.NumPartitions(), f.Explain())
		}
		sorted := f.SortValues(keys)
		checkTable(t, sorted, compute(t, ctx, sorted), cols, types, refGroupBy(rows, keys, aggs), 1e-9)
	}
}

// TestAggWholeFrame aggregates every row into one, as SQL does without
// GROUP BY, over frames of several shapes; a column it lacks is an error
// that names it.
func TestAggWholeFrame(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(12, 500)
	var list []dataframe.Agg
	var cols, types []string
	for _, a := range allAggs {
		list = append(list, a.agg)
		cols, types = append(cols, a.name), append(types, a.typ)
	}
	want := refGroupBy(rows, nil, allAggs)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			f := tf.frame.Agg(list...)
			checkTable(t, f, compute(t, ctx, f), cols, types, want, 1e-9)
		})
	}
	f := arrowFrame(t, rows, []int{500}).Agg(dataframe.Sum("nope"))
	if f.Err() == nil || !strings.Contains(f.Err().Error(), "nope") {
		t.Errorf("Agg(Sum(nope)): %v, want an error naming nope", f.Err())
	}
}

// TestAggSharedSubexpressions aggregates expressions that share parts, as
// TPC-H q1 does: each shared part is computed once, for the first
// aggregation that holds it, and read by the later ones (the plan says
// so), and every answer equals a plain loop's.
func TestAggSharedSubexpressions(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(12, 400)
	base := col("F").Mul(dataframe.Lit(1.0).Sub(col("G")))
	f := arrowFrame(t, rows, []int{150, 250}).GroupBy("KI").Agg(
		base.Sum().As("a"),
		base.Mul(dataframe.Lit(1.0).Add(col("G"))).Sum().As("b"),
		base.Mean().As("c"),
		base.Sum().As("d"),
	).SortValues([]string{"KI"})
	plan := f.Explain()
	for _, part := range []string{"= (__agg0 (F * (1 - G)) * (1 + G))", "__agg2", "__agg3"} {
		if got := strings.Contains(plan, part); got != (part[0] == '=') {
			t.Errorf("plan has %q: %v, want %v:\n%s", part, got, !got, plan)
		}
	}
	type sums struct {
		a, b float64
		n    int
	}
	by := map[int64]*sums{}
	var keys []int64
	for _, r := range rows {
		if r.KI == nil {
			continue
		}
		s := by[*r.KI]
		if s == nil {
			s = &sums{}
			by[*r.KI] = s
			keys = append(keys, *r.KI)
		}
		if r.F != nil && r.G != nil {
			v := *r.F * (1 - *r.G)
			s.a += v
			s.b += v * (1 + *r.G)
			s.n++
		}
	}
	slices.Sort(keys)
	var want [][]any
	for _, k := range keys {
		s := by[k]
		var mean any
		if s.n > 0 {
			mean = s.a / float64(s.n)
		}
		want = append(want, []any{k, s.a, s.b, mean, s.a})
	}
	checkTable(t, f, compute(t, ctx, f), []string{"KI", "a", "b", "c", "d"},
		[]string{"int64", "float64", "float64", "float64", "float64"}, want, 1e-9)
}

// TestGroupByNullKeyManyGroups groups by a nullable int32 key beside a
// date, into many groups (about 220,000 of 400,000 rows): the rows with a
// null key reach the combine in states of their own, which the merges must
// leave out (they crashed them with index -1). With and without SplitOut.
func TestGroupByNullKeyManyGroups(t *testing.T) {
	ctx := newClient(t)
	r := rand.New(rand.NewSource(1))
	schema := arrow.NewSchema([]arrow.Field{{Name: "zone", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	type key struct {
		zone int32
		day  arrow.Date32
	}
	type sums struct{ sum, max, n int64 }
	want := map[key]*sums{}
	var recs []arrow.Record
	for range 4 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for range 100_000 {
			zone, day, v := int32(r.Intn(263)), arrow.Date32(18000+r.Intn(1100)), r.Int63n(1000)
			null := r.Intn(20) == 0
			if null {
				b.Field(0).(*array.Int32Builder).AppendNull()
			} else {
				b.Field(0).(*array.Int32Builder).Append(zone)
			}
			b.Field(1).(*array.Date32Builder).Append(day)
			b.Field(2).(*array.Int64Builder).Append(v)
			if null {
				continue
			}
			s := want[key{zone, day}]
			if s == nil {
				s = &sums{max: -1}
				want[key{zone, day}] = s
			}
			s.sum, s.max, s.n = s.sum+v, max(s.max, v), s.n+1
		}
		recs = append(recs, b.NewRecord())
		defer recs[len(recs)-1].Release()
	}
	for _, split := range []int{0, 1, 4} {
		t.Run(fmt.Sprint("split=", split), func(t *testing.T) {
			g := dataframe.FromArrow(recs...).GroupBy("zone", "day")
			if split > 0 {
				g = g.SplitOut(split)
			}
			tb := compute(t, ctx, g.Agg(dataframe.Sum("v"), dataframe.Max("v"), dataframe.Count("v")))
			rec := tb.Record()
			if int(rec.NumRows()) != len(want) {
				t.Fatalf("%d groups, want %d", rec.NumRows(), len(want))
			}
			zones, days := rec.Column(0).(*array.Int32), rec.Column(1).(*array.Date32)
			sum, mx, n := rec.Column(2).(*array.Int64), rec.Column(3).(*array.Int64), rec.Column(4).(*array.Int64)
			for i := range int(rec.NumRows()) {
				w := want[key{zones.Value(i), days.Value(i)}]
				if zones.IsNull(i) || w == nil || sum.Value(i) != w.sum || mx.Value(i) != w.max || n.Value(i) != w.n {
					t.Fatalf("row %d: zone %v day %v: sum %d max %d count %d, want %+v", i, zones.Value(i), days.Value(i),
						sum.Value(i), mx.Value(i), n.Value(i), w)
				}
			}
		})
	}
}

// TestGroupByPackedStringKeys groups by a string key (and an integer
// beside it) split into 20 outputs, where the partial states' strings that
// pack move as kernel.PackedStrings: one partition's strings all pack, one
// holds strings too long to, one holds null keys, so that the combines
// meet packed and plain pieces together. With and without KeepNullKeys,
// against sums made row by row; the keys come back as plain strings.
func TestGroupByPackedStringKeys(t *testing.T) {
	ctx := newClient(t)
	r := rand.New(rand.NewSource(5))
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	type key struct {
		s    string
		null bool
		n    int64
	}
	type sums struct{ sum, max, count int64 }
	var recs []arrow.Record
	type row struct {
		k key
		v int64
	}
	var rows []row
	for p := range 4 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for range 3000 {
			k := key{s: fmt.Sprintf("id%d", r.Intn(1500)), n: r.Int63n(2)}
			switch {
			case p == 1 && r.Intn(10) == 0:
				k.s = fmt.Sprintf("a longer key, %d", r.Intn(50))
			case p == 2 && r.Intn(10) == 0:
				k = key{null: true, n: k.n}
			case r.Intn(50) == 0:
				k.s = "" // the empty string packs, and is no null
			}
			if k.null {
				b.Field(0).(*array.StringBuilder).AppendNull()
			} else {
				b.Field(0).(*array.StringBuilder).Append(k.s)
			}
			v := r.Int63n(1000)
			b.Field(1).(*array.Int64Builder).Append(k.n)
			b.Field(2).(*array.Int64Builder).Append(v)
			rows = append(rows, row{k, v})
		}
		recs = append(recs, b.NewRecord())
		defer recs[len(recs)-1].Release()
	}
	for _, keys := range [][]string{{"s"}, {"s", "n"}} {
		for _, keepNulls := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/nulls=%v", keys, keepNulls), func(t *testing.T) {
				want := map[key]*sums{}
				for _, rw := range rows {
					if rw.k.null && !keepNulls {
						continue
					}
					k := rw.k
					if len(keys) == 1 {
						k.n = 0
					}
					w := want[k]
					if w == nil {
						w = &sums{max: -1}
						want[k] = w
					}
					w.sum, w.max, w.count = w.sum+rw.v, max(w.max, rw.v), w.count+1
				}
				g := dataframe.FromArrow(recs...).GroupBy(keys...).SplitOut(20)
				if keepNulls {
					g = g.KeepNullKeys()
				}
				tb := compute(t, ctx, g.Agg(dataframe.Sum("v"), dataframe.Max("v"), dataframe.Count("v")))
				rec := tb.Record()
				if int(rec.NumRows()) != len(want) {
					t.Fatalf("%d groups, want %d", rec.NumRows(), len(want))
				}
				strs, ok := rec.Column(0).(*array.String)
				if !ok {
					t.Fatalf("key s is %s, not strings", rec.Column(0).DataType())
				}
				vals := rec.Columns()[len(keys):]
				sum, mx, n := vals[0].(*array.Int64), vals[1].(*array.Int64), vals[2].(*array.Int64)
				for i := range int(rec.NumRows()) {
					k := key{s: strs.Value(i), null: strs.IsNull(i)}
					if len(keys) == 2 {
						k.n = rec.Column(1).(*array.Int64).Value(i)
					}
					w := want[k]
					if w == nil || sum.Value(i) != w.sum || mx.Value(i) != w.max || n.Value(i) != w.count {
						t.Fatalf("row %d: key %+v: sum %d max %d count %d, want %+v", i, k, sum.Value(i), mx.Value(i), n.Value(i), w)
					}
					delete(want, k)
				}
			})
		}
	}
}

// TestDecimalSumOverflow sums DECIMAL(18,6) values whose total passes
// int64's range (2,000 unscaled values near 3e16; each partition's sums
// fit, the merged ones do not): the sum fails, naming the column, rather
// than wrapping by 2^64 (it did); grouped, split across partitions, and
// over the whole frame.
func TestDecimalSumOverflow(t *testing.T) {
	ctx := newClient(t)
	typ := &arrow.Decimal128Type{Precision: 18, Scale: 6}
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "x", Type: typ}}, nil)
	var recs []arrow.Record
	for p := range 4 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := range 500 {
			b.Field(0).(*array.Int64Builder).Append(int64(i % 3))
			b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(30_000_000_000_000_000 + int64(p*500+i)))
		}
		recs = append(recs, b.NewRecord())
		defer recs[len(recs)-1].Release()
	}
	for name, f := range map[string]*dataframe.Frame{
		"grouped": dataframe.FromArrow(recs...).GroupBy("k").Agg(dataframe.Sum("x")),
		"split":   dataframe.FromArrow(recs...).GroupBy("k").SplitOut(2).Agg(dataframe.Sum("x")),
		"whole":   dataframe.FromArrow(recs...).Agg(dataframe.Sum("x")),
	} {
		t.Run(name, func(t *testing.T) {
			tb, err := f.Compute(ctx)
			if err == nil {
				tb.Release()
				t.Fatal("the sum did not fail")
			}
			if !strings.Contains(err.Error(), "column x") || !strings.Contains(err.Error(), "64-bit") {
				t.Errorf("error %q does not name the column and the overflow", err)
			}
		})
	}
}

// TestDecimalArithOverflow multiplies and adds DECIMAL(18,2) values whose
// exact results need more than 18 digits: the expression fails, saying so,
// rather than wrapping; results that fit are exact.
func TestDecimalArithOverflow(t *testing.T) {
	ctx := newClient(t)
	typ := &arrow.Decimal128Type{Precision: 18, Scale: 2}
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: typ}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for _, v := range []int64{100, -250, 999_999_999_999_999_999} {
		b.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
	}
	rec := b.NewRecord()
	defer rec.Release()
	f := dataframe.FromArrow(rec)
	for name, e := range map[string]dataframe.Expr{
		"x*x": col("x").Mul(col("x")),
		"x+x": col("x").Add(col("x")),
	} {
		tb, err := f.WithColumn("y", e).Compute(ctx)
		if err == nil {
			tb.Release()
			t.Errorf("%s: no error for a result past 18 digits", name)
		} else if !strings.Contains(err.Error(), "more than 18 digits") {
			t.Errorf("%s: error %q does not say the result passes 18 digits", name, err)
		}
	}
	small := f.Filter(col("x").Lt(10)).WithColumn("y", col("x").Mul(col("x"))).Select("y")
	y := compute(t, ctx, small).Record().Column(0).(*array.Decimal128)
	if y.Len() != 2 || y.Value(0) != decimal128.FromI64(1_0000) || y.Value(1) != decimal128.FromI64(6_2500) {
		t.Errorf("x*x of 1.00 and -2.50 = %v", y)
	}
}

// TestMergeMixedIntegerKeys joins keys of different integer widths (int8
// and int32 against int64, float64 against int32) by value, with On and
// with LeftOn/RightOn, broadcast and shuffled, inner and left; it was
// refused as keys of different types.
func TestMergeMixedIntegerKeys(t *testing.T) {
	ctx := newClient(t)
	build := func(name string, typ arrow.DataType, keys []int64) *dataframe.Frame {
		schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: typ, Nullable: true}, {Name: name, Type: arrow.PrimitiveTypes.Int64}}, nil)
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		for i, k := range keys {
			switch kb := b.Field(0).(type) {
			case *array.Int8Builder:
				kb.Append(int8(k))
			case *array.Int32Builder:
				kb.Append(int32(k))
			case *array.Int64Builder:
				kb.Append(k)
			case *array.Float64Builder:
				kb.Append(float64(k))
			}
			b.Field(1).(*array.Int64Builder).Append(int64(i))
		}
		rec := b.NewRecord()
		defer rec.Release()
		return dataframe.FromArrow(rec)
	}
	lk := []int64{1, 2, 2, 3, 5, 8, 13, 21, 34, 55}
	rk := []int64{2, 3, 3, 5, 7, 55, 89}
	for _, c := range []struct{ lt, rt arrow.DataType }{
		{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64},
		{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int64},
		{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int32},
	} {
		for _, how := range []dataframe.How{dataframe.Inner, dataframe.Left} {
			for _, broadcast := range []int64{0, -1} {
				left, right := build("l", c.lt, lk), build("r", c.rt, rk)
				opts := []dataframe.MergeOptions{
					{How: how, On: []string{"k"}, BroadcastBytes: broadcast},
					{How: how, LeftOn: []string{"k"}, RightOn: []string{"k2"}, BroadcastBytes: broadcast},
				}
				for j, o := range opts {
					r := right
					if j == 1 {
						r = right.Rename(map[string]string{"k": "k2"})
					}
					name := fmt.Sprintf("%s-%s/%s/broadcast=%d/%d", c.lt, c.rt, how, broadcast, j)
					got := tableRows(t, compute(t, ctx, left.Merge(r, o).Select("l", "r")))
					var want [][]any
					for i, a := range lk {
						matched := false
						for k, b := range rk {
							if a == b {
								want, matched = append(want, []any{int64(i), int64(k)}), true
							}
						}
						if !matched && how == dataframe.Left {
							want = append(want, []any{int64(i), nil})
						}
					}
					byText := func(a, b []any) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) }
					slices.SortFunc(got, byText)
					slices.SortFunc(want, byText)
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%s: got %v, want %v", name, got, want)
					}
				}
			}
		}
	}
}

// TestDurationsAsNumbers writes a trip's length in minutes (a duration
// divided by time.Minute), and casts durations, timestamps and dates to the
// numbers they hold, as Polars does; all were refused.
func TestDurationsAsNumbers(t *testing.T) {
	ctx := newClient(t)
	ts := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	schema := arrow.NewSchema([]arrow.Field{{Name: "pick", Type: ts}, {Name: "drop", Type: ts, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	start := time.Date(2021, 11, 7, 5, 30, 0, 0, time.UTC)
	for i, mins := range []int64{90, 7, -1} {
		p := start.Add(time.Duration(i) * time.Hour)
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(p.UnixMicro()))
		if mins < 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(p.Add(time.Duration(mins)*time.Minute + 30*time.Second).UnixMicro()))
		}
		b.Field(2).(*array.Date32Builder).Append(arrow.Date32FromTime(p))
	}
	rec := b.NewRecord()
	defer rec.Release()
	trip := col("drop").Sub(col("pick"))
	f := dataframe.FromArrow(rec).
		WithColumn("minutes", trip.Div(time.Minute)).
		WithColumn("us", trip.Cast(dataframe.Int64)).
		WithColumn("us_f", trip.Cast(dataframe.Float64)).
		WithColumn("epoch_us", col("pick").Cast(dataframe.Int64)).
		WithColumn("days", col("day").Cast(dataframe.Int64)).
		Select("minutes", "us", "us_f", "epoch_us", "days")
	got := tableRows(t, compute(t, ctx, f))
	day := start.Unix() / 86400
	want := [][]any{
		{90.5, int64(5430e6), 5430e6, start.UnixMicro(), day},
		{7.5, int64(450e6), 450e6, start.Add(time.Hour).UnixMicro(), day},
		{nil, nil, nil, start.Add(2 * time.Hour).UnixMicro(), day},
	}
	checkRows(t, got, want, 1e-12)
}

// TestIsInDates: IsIn on a date column takes what Eq and Ge take: ISO
// strings, Date values and time.Time (a midnight); on a timestamp column,
// ISO strings and time.Time. It refused all of them on dates.
func TestIsInDates(t *testing.T) {
	ctx := newClient(t)
	ts := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true}, {Name: "ts", Type: ts}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	base := time.Date(2020, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5 {
		day := base.AddDate(0, 0, i)
		if i == 4 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Date32Builder).Append(arrow.Date32FromTime(day))
		}
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(day.Add(90 * time.Minute).UnixMicro()))
	}
	rec := b.NewRecord()
	defer rec.Release()
	f := dataframe.FromArrow(rec)
	for name, c := range map[string]struct {
		e    dataframe.Expr
		want string
	}{
		"iso":       {col("d").IsIn("2020-11-02", "2020-11-04"), "[[false] [true] [false] [true] [<nil>]]"},
		"date":      {col("d").IsIn(dataframe.Date("2020-11-01")), "[[true] [false] [false] [false] [<nil>]]"},
		"time":      {col("d").IsIn(base.AddDate(0, 0, 2), base.Add(time.Hour)), "[[false] [false] [true] [false] [<nil>]]"},
		"timestamp": {col("ts").IsIn("2020-11-03T01:30:00", base.Add(90*time.Minute)), "[[true] [false] [true] [false] [false]]"},
	} {
		if s := fmt.Sprint(tableRows(t, compute(t, ctx, f.WithColumn("in", c.e).Select("in")))); s != c.want {
			t.Errorf("%s: %s, want %s", name, s, c.want)
		}
	}
}

// TestDecimalMath: Abs, Neg, Floor, Ceil and Round of a decimal are exact
// and keep its type (Round half away from zero); Sqrt is a float64. All
// were refused ("abs needs a number").
func TestDecimalMath(t *testing.T) {
	ctx := newClient(t)
	typ := &arrow.Decimal128Type{Precision: 10, Scale: 2}
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: typ, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	in := []int64{125, -125, 250, -1, 0}
	for i, v := range in {
		if i == len(in)-1 {
			b.Field(0).AppendNull()
			continue
		}
		b.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
	}
	rec := b.NewRecord()
	defer rec.Release()
	f := dataframe.FromArrow(rec)
	for name, c := range map[string]struct {
		e    dataframe.Expr
		want []int64 // unscaled, at scale 2; the last row is null
	}{
		"abs":      {col("x").Abs(), []int64{125, 125, 250, 1}},
		"neg":      {col("x").Neg(), []int64{-125, 125, -250, 1}},
		"floor":    {col("x").Floor(), []int64{100, -200, 200, -100}},
		"ceil":     {col("x").Ceil(), []int64{200, -100, 300, 0}},
		"round(1)": {col("x").Round(1), []int64{130, -130, 250, 0}},
		"round(0)": {col("x").Round(0), []int64{100, -100, 300, 0}},
	} {
		y := compute(t, ctx, f.WithColumn("y", c.e).Select("y")).Record().Column(0)
		d, ok := y.(*array.Decimal128)
		if !ok || !arrow.TypeEqual(d.DataType(), typ) {
			t.Errorf("%s: a %s, want %s", name, y.DataType(), typ)
			continue
		}
		for i, w := range c.want {
			if d.Value(i) != decimal128.FromI64(w) {
				t.Errorf("%s row %d: %v, want %d", name, i, d.Value(i), w)
			}
		}
		if d.IsValid(len(c.want)) {
			t.Errorf("%s: the null row is not null", name)
		}
	}
	got := tableRows(t, compute(t, ctx, f.WithColumn("y", col("x").Abs().Sqrt()).Select("y")))
	checkRows(t, got, [][]any{{math.Sqrt(1.25)}, {math.Sqrt(1.25)}, {math.Sqrt(2.5)}, {0.1}, {nil}}, 1e-12)
}

// TestSumOrNull: a sum of a group whose values are all null is 0, and
// null with OrNull (SQL's), over partitions that split the group, whole
// frames, and no rows at all.
func TestSumOrNull(t *testing.T) {
	ctx := newClient(t)
	type row struct {
		K int64  `dusk:"k"`
		V *int64 `dusk:"v"`
	}
	seven := int64(7)
	rows := []row{{1, nil}, {2, &seven}, {1, nil}, {3, nil}, {2, nil}, {1, nil}}
	for _, parts := range []int{1, 3} {
		f := dataframe.FromRecords(rows, parts)
		got := tableRows(t, compute(t, ctx, f.GroupBy("k").Agg(dataframe.Sum("v"), dataframe.Sum("v").OrNull().As("sql"), dataframe.Count("v").OrNull())))
		checkRows(t, got, [][]any{{int64(1), int64(0), nil, int64(0)}, {int64(2), int64(7), int64(7), int64(1)}, {int64(3), int64(0), nil, int64(0)}}, 0)
		none := f.Filter(col("k").Gt(5))
		for _, g := range []*dataframe.Frame{f.Filter(col("k").Ne(2)), none} {
			got = tableRows(t, compute(t, ctx, g.Agg(dataframe.Sum("v"), dataframe.Sum("v").OrNull().As("sql"))))
			checkRows(t, got, [][]any{{int64(0), nil}}, 0)
		}
	}
}

// TestKeepNullKeys groups with null keys kept as groups (T and J, both
// nullable, and J alone for many partitions' worth of rows): each null
// combination is a group, aggregations see the keys' own nulls (count(J) of
// the null-J groups is 0), and in a result sorted by the keys nulls come
// last; with SplitOut and with Transform too.
func TestKeepNullKeys(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(13, 3000)
	type agg struct{ size, countJ, sumI int64 }
	ref := map[string]*agg{}
	keyOf := func(r testRow) string { return fmt.Sprint(deref(r.T), "|", deref(r.J)) }
	for _, r := range rows {
		a := ref[keyOf(r)]
		if a == nil {
			a = &agg{}
			ref[keyOf(r)] = a
		}
		a.size++
		if r.J != nil {
			a.countJ++
		}
		if r.I != nil {
			a.sumI += *r.I
		}
	}
	for _, split := range []int{0, 3} {
		g := arrowFrame(t, rows, []int{1000, 1000, 1000}).GroupBy("T", "J").KeepNullKeys()
		if split > 0 {
			g = g.SplitOut(split)
		}
		got := tableRows(t, compute(t, ctx, g.Agg(dataframe.Size(), dataframe.Count("J"), dataframe.Sum("I"))))
		if len(got) != len(ref) {
			t.Fatalf("split %d: %d groups, want %d", split, len(got), len(ref))
		}
		for i, row := range got {
			key := fmt.Sprint(deref(row[0]), "|", deref(row[1]))
			w := ref[key]
			if w == nil || row[2] != w.size || row[3] != w.countJ || row[4] != w.sumI {
				t.Fatalf("split %d: group %s: %v, want %+v", split, key, row[2:], w)
			}
			if split == 0 && i > 0 && row[0] != nil && got[i-1][0] == nil {
				t.Errorf("a null T comes before %v: nulls sort last", row[0])
			}
		}
	}
	// Transform gives every row its group's size, null keys included.
	tr := tableRows(t, compute(t, ctx, arrowFrame(t, rows, []int{1500, 1500}).GroupBy("T", "J").KeepNullKeys().
		Transform(dataframe.Size()).Select("ID", "T", "J", "size")))
	if len(tr) != len(rows) {
		t.Fatalf("Transform: %d rows, want %d", len(tr), len(rows))
	}
	for _, row := range tr {
		if w := ref[fmt.Sprint(deref(row[1]), "|", deref(row[2]))]; w == nil || row[3] != w.size {
			t.Fatalf("Transform: row %v, want size %+v", row, w)
		}
	}
	// NLargest keeps each group's largest I, the null T's group too.
	best := map[string]int64{}
	for _, r := range rows {
		if r.I == nil {
			continue
		}
		k := fmt.Sprint(deref(r.T))
		if v, ok := best[k]; !ok || *r.I > v {
			best[k] = *r.I
		}
	}
	top := tableRows(t, compute(t, ctx, arrowFrame(t, rows, []int{1500, 1500}).GroupBy("T").KeepNullKeys().NLargest(1, "I").Select("T", "I")))
	if len(top) != len(best) {
		t.Fatalf("NLargest: %d groups, want %d", len(top), len(best))
	}
	for _, row := range top {
		if w, ok := best[fmt.Sprint(deref(row[0]))]; !ok || row[1] != w {
			t.Fatalf("NLargest: row %v, want I %d", row, w)
		}
	}
}

// deref is what a nullable cell holds, or "null".
func deref(v any) any {
	switch p := v.(type) {
	case *string:
		if p != nil {
			return *p
		}
		return "null"
	case *int64:
		if p != nil {
			return *p
		}
		return "null"
	case nil:
		return "null"
	}
	return v
}

// TestAggOfNothing: a whole frame's Agg of no rows is one row (counts and
// sums 0, the rest null), as SQL's and pandas'; it was none. A grouping's
// Agg() with no aggregations gives the distinct keys, as Polars'. Both
// found by the differential fuzzer (internal/difftest).
func TestAggOfNothing(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(14, 200)
	f := arrowFrame(t, rows, []int{100, 100})
	empty := f.Filter(col("ID").Lt(int64(0)))
	got := tableRows(t, compute(t, ctx, empty.Agg(dataframe.Size(), dataframe.Count("I"), dataframe.Sum("I"),
		dataframe.Sum("F"), dataframe.Min("I"), dataframe.Max("F"), dataframe.Mean("I"), dataframe.Std("F"))))
	checkRows(t, got, [][]any{{int64(0), int64(0), int64(0), 0.0, nil, nil, nil, nil}}, 0)
	keys := tableRows(t, compute(t, ctx, f.GroupBy("KI").Agg()))
	want := map[string]bool{}
	for _, r := range rows {
		if r.KI != nil {
			want[fmt.Sprint(*r.KI)] = true
		}
	}
	if len(keys) != len(want) {
		t.Fatalf("GroupBy(KI).Agg(): %v, want the %d distinct keys", keys, len(want))
	}
	for _, k := range keys {
		if !want[fmt.Sprint(k[0])] {
			t.Errorf("GroupBy(KI).Agg(): key %v is not one", k[0])
		}
	}
}

// TestNegUnsigned: the negation of an unsigned integer is signed, one width
// up (-61 of a uint16 was 65475); found by the differential fuzzer.
func TestNegUnsigned(t *testing.T) {
	ctx := newClient(t)
	schema := arrow.NewSchema([]arrow.Field{{Name: "u", Type: arrow.PrimitiveTypes.Uint16}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Uint16Builder).AppendValues([]uint16{61, 0, 65535}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	got := compute(t, ctx, dataframe.FromArrow(rec).WithColumn("n", col("u").Neg()).Select("n")).Record().Column(0)
	if got.DataType().ID() != arrow.INT32 || fmt.Sprint(got) != "[-61 0 -65535]" {
		t.Errorf("-u = %v (%s), want [-61 0 -65535] (int32)", got, got.DataType())
	}
}
