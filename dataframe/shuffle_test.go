package dataframe_test

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe"
)

// rightRow is a row of the right-hand table joined with testRow's.
type rightRow struct {
	KI *int64
	K  *string
	V  int64
	S  string
}

func rightRows(n int) []rightRow {
	keys := []string{"north", "south", "zz", "nowhere"}
	var out []rightRow
	for i := range n {
		r := rightRow{V: int64(i), S: fmt.Sprint("r", i)}
		if i%9 != 4 {
			r.KI = ptr(int64(i % 6)) // 4 and 5 match no left row
		}
		if i%5 != 3 {
			r.K = ptr(keys[i%len(keys)])
		}
		out = append(out, r)
	}
	return out
}

// refMerge joins left and right rows on the columns named, nulls matching
// nulls, as pandas' merge: left's columns (clashing ones suffixed _x), then
// right's but the keys (clashing ones suffixed _y).
func refMerge(left []testRow, right []rightRow, how dataframe.How, on []string) [][]any {
	rv := func(r rightRow) map[string]any {
		return map[string]any{"KI": val(r.KI), "K": val(r.K), "V": r.V, "S": r.S}
	}
	lv := func(r testRow) map[string]any {
		m := map[string]any{}
		for i, c := range testColumns {
			m[c] = r.values()[i]
		}
		return m
	}
	match := func(l map[string]any, r map[string]any) bool {
		for _, c := range on {
			if l[c] != r[c] {
				return false
			}
		}
		return true
	}
	rcols := []string{"KI", "K", "V", "S"}
	row := func(l, r map[string]any) []any {
		var out []any
		for _, c := range testColumns {
			v := any(nil)
			if l != nil {
				v = l[c]
			}
			if slices.Contains(on, c) && l == nil {
				v = r[c]
			}
			out = append(out, v)
		}
		for _, c := range rcols {
			if slices.Contains(on, c) {
				continue
			}
			v := any(nil)
			if r != nil {
				v = r[c]
			}
			out = append(out, v)
		}
		return out
	}
	var out [][]any
	matched := make([]bool, len(right))
	for _, lr := range left {
		l := lv(lr)
		found := false
		for j, rr := range right {
			if r := rv(rr); match(l, r) {
				if how != dataframe.Semi && how != dataframe.Anti {
					out = append(out, row(l, r))
				}
				found, matched[j] = true, true
			}
		}
		switch {
		case found && how == dataframe.Semi, !found && how == dataframe.Anti:
			out = append(out, lr.values())
		case !found && (how == "left" || how == "outer"):
			out = append(out, row(l, nil))
		}
	}
	if how == "right" || how == "outer" {
		for j, rr := range right {
			if !matched[j] {
				out = append(out, row(nil, rv(rr)))
			}
		}
	}
	return out
}

// canonical sorts rows by their printed form, for results whose order is
// not defined.
func canonical(rows [][]any) [][]any {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b []any) int { return strings.Compare(fmt.Sprint(a...), fmt.Sprint(b...)) })
	return rows
}

func TestMerge(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(21, 300)
	right := dataframe.FromRecords(rightRows(40), 3)
	for _, tf := range eachFrame(t, rows) {
		for _, on := range [][]string{{"KI"}, {"K", "KI"}} {
			for _, how := range []dataframe.How{dataframe.Inner, dataframe.Left, dataframe.Right, dataframe.Outer, dataframe.Semi, dataframe.Anti} {
				for _, broadcast := range []int64{0, -1} {
					name := fmt.Sprintf("%s/on=%v/%s/broadcast=%d", tf.name, on, how, broadcast)
					t.Run(name, func(t *testing.T) {
						f := tf.frame.Merge(right, dataframe.MergeOptions{How: how, On: on, BroadcastBytes: broadcast})
						got := canonical(tableRows(t, compute(t, ctx, f)))
						want := canonical(refMerge(tf.rows, rightRows(40), how, on))
						checkRows(t, got, want, 0)
						cols := f.Columns()
						if how == dataframe.Semi || how == dataframe.Anti {
							if fmt.Sprint(cols) != fmt.Sprint(testColumns) {
								t.Fatalf("columns %v: want the left's, %v", cols, testColumns)
							}
							return
						}
						if !slices.Contains(cols, "S_x") || !slices.Contains(cols, "S_y") || slices.Contains(cols, "KI_x") {
							t.Fatalf("columns %v: want S_x and S_y, KI once", cols)
						}
					})
				}
			}
		}
	}
}

// A cross join pairs every left row with every right row, whatever the
// partitions; the right side, in one partition, is broadcast.
func TestMergeCross(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(23, 50)
	right := dataframe.FromRecords(rightRows(7), 3)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			f := tf.frame.Merge(right, dataframe.MergeOptions{How: dataframe.Cross})
			if plan := f.Explain(); !strings.Contains(plan, "broadcast right") {
				t.Fatalf("plan:\n%s", plan)
			}
			checkRows(t, canonical(tableRows(t, compute(t, ctx, f))), canonical(refMerge(tf.rows, rightRows(7), dataframe.Inner, nil)), 0)
		})
	}
	wantErr(t, "Merge", dataframe.FromRecords(rows, 1).Merge(right, dataframe.MergeOptions{How: dataframe.Cross, On: []string{"KI"}}).Err(), "cross join takes no key columns")
}

// Frames hash-partitioned on the key into as many partitions join where
// they are, and the answer is the same.
func TestMergeCoPartitioned(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(22, 400)
	left := arrowFrame(t, rows, []int{100, 100, 200}).Shuffle(5, "KI")
	right := dataframe.FromRecords(rightRows(40), 2).Shuffle(5, "KI")
	f := left.Merge(right, dataframe.MergeOptions{How: "outer", On: []string{"KI"}, BroadcastBytes: -1})
	if plan := f.Explain(); !strings.Contains(plan, "co-partitioned") {
		t.Fatalf("plan:\n%s", plan)
	}
	checkRows(t, canonical(tableRows(t, compute(t, ctx, f))), canonical(refMerge(rows, rightRows(40), "outer", []string{"KI"})), 0)
}

// A broadcast side's table is built once and probed by every partition
// of the other side: the left side of an inner or right join (probed by
// the right's rows) as the right of the others, on one key and on two;
// the left side of a semi or anti join is marked by every right partition.
func TestMergeBroadcastBuilt(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(24, 300)
	for _, c := range []struct {
		how  dataframe.How
		left bool // the left side is the one broadcast
	}{{dataframe.Inner, true}, {dataframe.Right, true}, {dataframe.Semi, true}, {dataframe.Anti, true},
		{dataframe.Inner, false}, {dataframe.Left, false}, {dataframe.Semi, false}, {dataframe.Anti, false}} {
		for _, on := range [][]string{{"KI"}, {"K", "KI"}} {
			t.Run(fmt.Sprintf("%s/on=%v", c.how, on), func(t *testing.T) {
				left := arrowFrame(t, rows, []int{100, 100, 100})
				right := dataframe.FromRecords(rightRows(40), 4)
				if c.left {
					left, right = dataframe.FromRecords(genRows(24, 300), 1), dataframe.FromRecords(rightRows(40), 4)
				} else {
					right = dataframe.FromRecords(rightRows(40), 1)
				}
				f := left.Merge(right, dataframe.MergeOptions{How: c.how, On: on, BroadcastBytes: -1})
				want := "broadcast right"
				switch {
				case c.left && (c.how == dataframe.Semi || c.how == dataframe.Anti):
					want = "broadcast left, marked by every right partition"
				case c.left:
					want = "broadcast left"
				}
				if plan := f.Explain(); !strings.Contains(plan, want) {
					t.Fatalf("plan, want %s:\n%s", want, plan)
				}
				checkRows(t, canonical(tableRows(t, compute(t, ctx, f))), canonical(refMerge(rows, rightRows(40), c.how, on)), 0)
			})
		}
	}
}

// A semi or anti join of two sides small enough to broadcast builds its
// table on the smaller one: the left, marked by the right's partitions, or
// the right, probed by the left's.
func TestMergeSemiBothSmall(t *testing.T) {
	ctx := newClient(t)
	for _, c := range []struct {
		left, right int // rows
		want        string
	}{{20, 3000, "broadcast left, marked by every right partition"}, {300, 40, "broadcast right"}} {
		for _, how := range []dataframe.How{dataframe.Semi, dataframe.Anti} {
			t.Run(fmt.Sprintf("%s/%d-%d", how, c.left, c.right), func(t *testing.T) {
				rows := genRows(25, c.left)
				left, right := dataframe.FromRecords(rows, 1), dataframe.FromRecords(rightRows(c.right), 2)
				f := left.Merge(right, dataframe.MergeOptions{How: how, On: []string{"KI"}})
				if plan := f.Explain(); !strings.Contains(plan, c.want) {
					t.Fatalf("plan, want %s:\n%s", c.want, plan)
				}
				checkRows(t, canonical(tableRows(t, compute(t, ctx, f))), canonical(refMerge(rows, rightRows(c.right), how, []string{"KI"})), 0)
			})
		}
	}
}

// A semi join that marks a broadcast left side gives the join's columns,
// those later steps read, in their order, not the side's whole rows: here
// a later join builds its table on the semi join's rows, which lack the
// left's first column, the key.
func TestMergeMarkedColumns(t *testing.T) {
	ctx := newClient(t)
	left, right := dataframe.FromRecords(rightRows(40), 1), dataframe.FromRecords(genRows(27, 3000), 2) // KI first
	semi := left.Merge(right, dataframe.MergeOptions{How: dataframe.Semi, On: []string{"KI"}})
	if plan := semi.Explain(); !strings.Contains(plan, "marked by every right partition") {
		t.Fatalf("plan:\n%s", plan)
	}
	top := dataframe.FromRecords(rightRows(10), 1).Select("V").Rename(map[string]string{"V": "W"})
	f := top.Merge(semi.Select("S", "V"), dataframe.MergeOptions{LeftOn: []string{"W"}, RightOn: []string{"V"}}).Select("W", "S")
	have := map[any]bool{}
	for _, r := range genRows(27, 3000) {
		have[kiOf(r.KI)] = true
	}
	var want [][]any
	for _, r := range rightRows(40) {
		if have[kiOf(r.KI)] && r.V < 10 {
			want = append(want, []any{r.V, r.S})
		}
	}
	checkRows(t, canonical(tableRows(t, compute(t, ctx, f))), canonical(want), 0)
}

// Partitions of a few rows beside a large broadcast side join on tables
// of their own rows, which the side's rows probe (its table unbuilt), and
// the answer is the same for every join that keeps the left rows.
func TestMergeSmallPartitionsBuildLeft(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(26, 60)
	for _, how := range []dataframe.How{dataframe.Inner, dataframe.Left, dataframe.Semi, dataframe.Anti} {
		for _, on := range [][]string{{"KI"}, {"K", "KI"}} {
			t.Run(fmt.Sprintf("%s/on=%v", how, on), func(t *testing.T) {
				left := arrowFrame(t, rows, []int{20, 20, 20})
				right := dataframe.FromRecords(rightRows(2000), 1)
				f := left.Merge(right, dataframe.MergeOptions{How: how, On: on, BroadcastBytes: -1})
				if plan := f.Explain(); !strings.Contains(plan, "broadcast right") {
					t.Fatalf("plan:\n%s", plan)
				}
				checkRows(t, canonical(tableRows(t, compute(t, ctx, f))), canonical(refMerge(rows, rightRows(2000), how, on)), 0)
			})
		}
	}
}

func TestMergeErrors(t *testing.T) {
	left := dataframe.FromRecords(genRows(1, 10), 1)
	right := dataframe.FromRecords(rightRows(5), 1)
	for _, c := range []struct {
		f     *dataframe.Frame
		parts []string
	}{
		{left.Merge(right, dataframe.MergeOptions{LeftOn: []string{"S"}, RightOn: []string{"V"}}), []string{"left S is string", "right V is int64"}},
		{left.Join(right, "inner", "nope"), []string{"nope", "not found"}},
		{left.Join(right, "sideways", "KI"), []string{"sideways"}},
		{left.Merge(right, dataframe.MergeOptions{}), []string{"no key columns"}},
	} {
		wantErr(t, "Merge", c.f.Err(), c.parts...)
	}
}

func TestSortValues(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(23, 500)
	for _, tf := range eachFrame(t, rows) {
		for _, asc := range [][]bool{{true, true}, {false, true}} {
			t.Run(fmt.Sprintf("%s/asc=%v", tf.name, asc), func(t *testing.T) {
				f := tf.frame.SortValues([]string{"KI", "F"}, asc...)
				got := tableRows(t, compute(t, ctx, f))
				want := make([][]any, len(rows))
				for i, r := range rows {
					want[i] = r.values()
				}
				key := func(r []any) []any { return []any{r[9], r[3]} }
				slices.SortStableFunc(want, func(a, b []any) int {
					for c, v := range key(a) {
						if r := compareNullsLast(v, key(b)[c], asc[c]); r != 0 {
							return r
						}
					}
					return 0
				})
				for i := range want {
					if fmt.Sprint(key(got[i])) != fmt.Sprint(key(want[i])) {
						t.Fatalf("row %d: keys %v, want %v", i, key(got[i]), key(want[i]))
					}
				}
				checkRows(t, canonical(got), canonical(want), 0)
			})
		}
	}
}

// compareNullsLast orders two values of one column: nulls last, the rest
// ascending or descending.
func compareNullsLast(a, b any, asc bool) int {
	switch {
	case a == nil || b == nil:
		return cmp.Compare(btoi(a == nil), btoi(b == nil))
	}
	var r int
	switch x := a.(type) {
	case int64:
		r = cmp.Compare(x, b.(int64))
	case float64:
		r = cmp.Compare(x, b.(float64))
	case string:
		r = cmp.Compare(x, b.(string))
	}
	if !asc {
		r = -r
	}
	return r
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestSetIndexLoc(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(24, 400)
	slices.Reverse(rows)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			f := tf.frame.SetIndex("ID").Loc(int64(37), int64(211))
			var want [][]any
			for id := 37; id <= 211; id++ {
				want = append(want, rows[len(rows)-1-id].values())
			}
			checkRows(t, tableRows(t, compute(t, ctx, f)), want, 0)
			open := tf.frame.SetIndex("ID").Loc(nil, 5.5)
			if n := compute(t, ctx, open).NumRows(); n != 6 {
				t.Fatalf("Loc(nil, 5.5): %d rows, want 6", n)
			}
		})
	}
	wantErr(t, "Loc unsorted", dataframe.FromRecords(rows, 2).Loc(1, 2).Err(), "SetIndex")
	wantErr(t, "Loc string bound", dataframe.FromRecords(rows, 2).SetIndex("ID").Loc("a", nil).Err(), "string", "ID")
}

func TestRepartition(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(25, 300)
	var want [][]any
	for _, r := range rows {
		want = append(want, r.values())
	}
	for _, tf := range eachFrame(t, rows) {
		for _, n := range []int{1, 2, 5, 40} {
			t.Run(fmt.Sprintf("%s/n=%d", tf.name, n), func(t *testing.T) {
				f := tf.frame.Repartition(n)
				if f.NumPartitions() != n {
					t.Fatalf("%d partitions, want %d", f.NumPartitions(), n)
				}
				checkRows(t, tableRows(t, compute(t, ctx, f)), want, 0)
			})
		}
		t.Run(tf.name+"/by-size", func(t *testing.T) {
			p, err := tf.frame.Persist(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Release()
			f, err := p.RepartitionBySize(ctx, 2000)
			if err != nil {
				t.Fatal(err)
			}
			if f.NumPartitions() < 3 {
				t.Fatalf("%d partitions of about 2000 bytes for %d rows", f.NumPartitions(), len(rows))
			}
			checkRows(t, tableRows(t, compute(t, ctx, f)), want, 0)
		})
	}
}

func TestDropDuplicates(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(26, 600)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			seen := map[string]bool{}
			var want [][]any
			for _, r := range rows {
				k := fmt.Sprint(val(r.K), "|", val(r.KI))
				if !seen[k] {
					seen[k] = true
					want = append(want, r.values())
				}
			}
			got := tableRows(t, compute(t, ctx, tf.frame.DropDuplicates("K", "KI")))
			checkRows(t, canonical(got), canonical(want), 0)

			var uniq [][]any
			tseen := map[any]bool{}
			for _, r := range rows {
				if v := val(r.T); !tseen[v] {
					tseen[v] = true
					uniq = append(uniq, []any{v})
				}
			}
			checkRows(t, canonical(tableRows(t, compute(t, ctx, tf.frame.Unique("T")))), canonical(uniq), 0)
			n, err := tf.frame.Nunique(ctx, "T")
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(len(tseen)) - btoi64(tseen[nil]); n != want {
				t.Fatalf("Nunique(T) = %d, want %d", n, want)
			}
		})
	}
}

func btoi64(b bool) int64 { return int64(btoi(b)) }

func TestValueCountsAndNLargest(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(27, 500)
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			counts := map[string]int64{}
			for _, r := range rows {
				if r.K != nil {
					counts[*r.K]++
				}
			}
			var want [][]any
			for k, n := range counts {
				want = append(want, []any{k, n})
			}
			slices.SortFunc(want, func(a, b []any) int {
				return cmp.Or(cmp.Compare(b[1].(int64), a[1].(int64)), cmp.Compare(a[0].(string), b[0].(string)))
			})
			checkRows(t, tableRows(t, compute(t, ctx, tf.frame.ValueCounts("K"))), want, 0)

			// The 7 largest and smallest F, best first; nulls never.
			var fs []float64
			for _, r := range rows {
				if r.F != nil {
					fs = append(fs, *r.F)
				}
			}
			slices.Sort(fs)
			for _, largest := range []bool{true, false} {
				f := tf.frame.NSmallest(7, "F")
				wantF := fs[:7]
				if largest {
					f = tf.frame.NLargest(7, "F")
					wantF = slices.Clone(fs[len(fs)-7:])
					slices.Reverse(wantF)
				}
				got := tableRows(t, compute(t, ctx, f.Select("F")))
				for i := range wantF {
					if got[i][0] != wantF[i] {
						t.Fatalf("largest=%v: row %d F = %v, want %v", largest, i, got[i][0], wantF[i])
					}
				}
			}
		})
	}
}

func TestGroupByHolistic(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(28, 700)
	type acc struct {
		fs          []float64
		first, last any
		ts          map[string]bool
		is          []int64
	}
	groups := map[string]*acc{}
	var order []string
	for _, r := range rows {
		if r.K == nil {
			continue
		}
		g, ok := groups[*r.K]
		if !ok {
			g = &acc{ts: map[string]bool{}}
			groups[*r.K] = g
			order = append(order, *r.K)
		}
		if r.F != nil {
			g.fs = append(g.fs, *r.F)
		}
		if r.I != nil {
			if g.first == nil {
				g.first = *r.I
			}
			g.last = *r.I
			g.is = append(g.is, *r.I)
		}
		if r.T != nil {
			g.ts[*r.T] = true
		}
	}
	quantile := func(v []float64, q float64) any {
		if len(v) == 0 {
			return nil
		}
		s := slices.Clone(v)
		slices.Sort(s)
		pos := q * float64(len(s)-1)
		lo := int(math.Floor(pos))
		hi := min(lo+1, len(s)-1)
		return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
	}
	slices.Sort(order)
	var want [][]any
	for _, k := range order {
		g := groups[k]
		want = append(want, []any{k, quantile(g.fs, 0.5), quantile(g.fs, 0.25), g.first, g.last, int64(len(g.ts)), float64OrNil(g.fs)})
	}
	for _, tf := range eachFrame(t, rows) {
		for _, split := range []int{0, 3} {
			t.Run(fmt.Sprintf("%s/split=%d", tf.name, split), func(t *testing.T) {
				f := tf.frame.GroupBy("K").SplitOut(split).Agg(dataframe.Median("F"), dataframe.Quantile("F", 0.25),
					dataframe.First("I"), dataframe.Last("I"), dataframe.Nunique("T"), dataframe.Sum("F").As("sum"))
				got := tableRows(t, compute(t, ctx, f))
				slices.SortFunc(got, func(a, b []any) int { return cmp.Compare(a[0].(string), b[0].(string)) })
				checkRows(t, got, want, 1e-12)
			})
		}
		t.Run(tf.name+"/nlargest", func(t *testing.T) {
			f := tf.frame.GroupBy("K").NLargest(2, "I").Select("K", "I")
			var want [][]any
			for _, k := range order {
				is := slices.Clone(groups[k].is)
				slices.Sort(is)
				slices.Reverse(is)
				for _, v := range is[:min(2, len(is))] {
					want = append(want, []any{k, v})
				}
			}
			checkRows(t, canonical(tableRows(t, compute(t, ctx, f))), canonical(want), 0)
		})
		t.Run(tf.name+"/transform", func(t *testing.T) {
			f := tf.frame.GroupBy("K").Transform(dataframe.Size().As("n")).Select("ID", "K", "n")
			sizes := map[string]int64{}
			for _, r := range rows {
				if r.K != nil {
					sizes[*r.K]++
				}
			}
			var want [][]any // rows without a key keep a null, as in pandas
			for _, r := range rows {
				if r.K != nil {
					want = append(want, []any{r.ID, *r.K, sizes[*r.K]})
				} else {
					want = append(want, []any{r.ID, nil, nil})
				}
			}
			checkRows(t, canonical(tableRows(t, compute(t, ctx, f))), canonical(want), 0)
		})
	}
}

func float64OrNil(v []float64) any {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

// A registered function: the rows' count and the sum of I.
func init() {
	dataframe.RegisterFunc("test-count-sum", func(rec arrow.Record) (arrow.Record, error) {
		var sum int64
		is := rec.Column(rec.Schema().FieldIndices("I")[0]).(*array.Int64)
		for i := range is.Len() {
			if is.IsValid(i) {
				sum += is.Value(i)
			}
		}
		b := array.NewRecordBuilder(memory.DefaultAllocator, countSumSchema)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).Append(rec.NumRows())
		b.Field(1).(*array.Int64Builder).Append(sum)
		return b.NewRecord(), nil
	})
}

var countSumSchema = arrow.NewSchema([]arrow.Field{
	{Name: "rows", Type: arrow.PrimitiveTypes.Int64}, {Name: "sum", Type: arrow.PrimitiveTypes.Int64},
}, nil)

func TestMapPartitionsAndApply(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(29, 300)
	var total, sum int64
	perGroup := map[int64][2]int64{}
	for _, r := range rows {
		total++
		if r.I != nil {
			sum += *r.I
		}
		if r.KI != nil {
			g := perGroup[*r.KI]
			g[0]++
			if r.I != nil {
				g[1] += *r.I
			}
			perGroup[*r.KI] = g
		}
	}
	for _, tf := range eachFrame(t, rows) {
		t.Run(tf.name, func(t *testing.T) {
			got := tableRows(t, compute(t, ctx, tf.frame.MapPartitions("test-count-sum", countSumSchema)))
			var n, s int64
			for _, r := range got {
				n, s = n+r[0].(int64), s+r[1].(int64)
			}
			if len(got) != tf.frame.NumPartitions() || n != total || s != sum {
				t.Fatalf("%d rows summing to %d, %d; want %d rows, %d, %d", len(got), n, s, tf.frame.NumPartitions(), total, sum)
			}
			var want [][]any
			for _, g := range perGroup {
				want = append(want, []any{g[0], g[1]})
			}
			got = tableRows(t, compute(t, ctx, tf.frame.GroupBy("KI").Apply("test-count-sum", countSumSchema)))
			checkRows(t, canonical(got), canonical(want), 0)
			// With KeepNullKeys the rows of a null KI are a group too.
			var nullRows, nullSum int64
			for _, r := range tf.rows {
				if r.KI == nil {
					nullRows++
					if r.I != nil {
						nullSum += *r.I
					}
				}
			}
			if nullRows > 0 {
				want = append(want, []any{nullRows, nullSum})
			}
			got = tableRows(t, compute(t, ctx, tf.frame.GroupBy("KI").KeepNullKeys().Apply("test-count-sum", countSumSchema)))
			checkRows(t, canonical(got), canonical(want), 0)
		})
	}
	wrong := arrow.NewSchema([]arrow.Field{{Name: "rows", Type: arrow.PrimitiveTypes.Float64}}, nil)
	_, err := dataframe.FromRecords(rows, 3).MapPartitions("test-count-sum", wrong).Compute(ctx)
	wantErr(t, "MapPartitions with a wrong schema", err, "partition", "rows is int64, declared float64", "sum (int64) is not declared")
	wantErr(t, "MapPartitions of an unknown function", dataframe.FromRecords(rows, 3).MapPartitions("nope", wrong).Err(), "nope", "RegisterFunc")
}
