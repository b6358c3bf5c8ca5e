package dataframe_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/duskdata/dusk/dataframe"
)

// A join whose sides are both too large to broadcast by their files'
// sizes, but one of them filtered down to a few rows, has that side
// computed first and broadcast; where the filter keeps most rows, or a
// later join needs the rows partitioned by the key, both sides are still
// shuffled. The answers are the reference's either way.
func TestAdaptiveBroadcast(t *testing.T) {
	ctx := newClient(t)
	rows, left, right := adaptFiles(t, ctx, 31)
	// BroadcastBytes of 1: no side is small by its files alone.
	opts := dataframe.MergeOptions{How: dataframe.Inner, On: []string{"KI"}, BroadcastBytes: 1}
	for _, c := range []struct {
		name      string
		keep      func(v int64) bool
		right     *dataframe.Frame
		broadcast bool
	}{
		// Rows of every file, so that no file is skipped by its statistics.
		{"few rows", func(v int64) bool { return v%200 == 7 }, right.Filter(dataframe.Col("S").IsIn("r7", "r207", "r407")), true},
		{"most rows", func(v int64) bool { return v%200 != 7 }, right.Filter(dataframe.Col("S").IsIn("r7", "r207", "r407").Not()), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := left.Merge(c.right, opts)
			if plan := f.Explain(); !strings.Contains(plan, "its right side computed first") {
				t.Fatalf("plan does not settle the join on the right side's size:\n%s", plan)
			}
			checkBroadcastRight(t, ctx, f, c.broadcast)
			kept := rightKept(c.keep)
			checkRows(t, canonical(tableRows(t, compute(t, ctx, f))), canonical(refMerge(rows, kept, dataframe.Inner, []string{"KI"})), 0)
		})
	}
	// The side estimated smaller (one column of many, behind a filter that
	// keeps every row) is computed first and is not small; the other,
	// filtered to a few rows, then is, and is broadcast.
	t.Run("the other side small", func(t *testing.T) {
		f := left.Filter(dataframe.Col("ID").Ge(int64(-1))).Select("KI").Merge(right.Filter(dataframe.Col("S").IsIn("r7", "r207", "r407")), opts)
		plan, err := f.ExplainAdapted(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "(broadcast right)") {
			t.Fatalf("the small right side is not broadcast:\n%s", plan)
		}
		var kept []rightRow
		for _, r := range rightRows(600) {
			if r.V%200 == 7 {
				kept = append(kept, r)
			}
		}
		if got, want := len(tableRows(t, compute(t, ctx, f))), len(refMerge(rows, kept, dataframe.Inner, []string{"KI"})); got != want {
			t.Errorf("%d rows, want %d", got, want)
		}
	})
	// Rows decide where both sides' are known (the files' footers count
	// the left's, the held right's are counted): 40 rows of every right
	// file, a tenth of the left's 400, are broadcast though their bytes
	// are more than an eighth of the left's one column; 60, more than an
	// eighth, are not.
	for _, c := range []struct {
		every     int64
		broadcast bool
	}{{15, true}, {10, false}} {
		t.Run(fmt.Sprintf("one right row in %d", c.every), func(t *testing.T) {
			f := left.Select("KI").Merge(right.Filter(dataframe.Col("V").Mod(c.every).Eq(int64(0))), opts)
			checkBroadcastRight(t, ctx, f, c.broadcast)
			want := refMerge(rows, rightKept(func(v int64) bool { return v%c.every == 0 }), dataframe.Inner, []string{"KI"})
			if got := tableRows(t, compute(t, ctx, f)); len(got) != len(want) {
				t.Errorf("%d rows, want %d", len(got), len(want))
			}
		})
	}
	// A later join of co-partitioned sides reads this join's rows where
	// the shuffle puts them. The held side's keys decide: unique (r7, r207
	// and r407 hold keys 1, 3 and 5), this join has at most the left's
	// rows, and broadcasting the side costs the later join's shuffle of
	// them no more than this one's of the left; repeated (r1 and r7 both
	// hold key 1, r207 key 3: rows of two files), this join stays a shuffle. The answer is the one of the
	// same joins shuffled.
	later := right.Select("KI", "V").Rename(map[string]string{"V": "V2"}).Shuffle(4, "KI")
	laterOpts := dataframe.MergeOptions{On: []string{"KI"}, BroadcastBytes: -1}
	shuffled := opts
	shuffled.BroadcastBytes = -1
	for _, c := range []struct {
		names     []any
		broadcast bool
	}{{[]any{"r7", "r207", "r407"}, true}, {[]any{"r1", "r7", "r207"}, false}} {
		side := right.Filter(dataframe.Col("S").IsIn(c.names...))
		f := left.Merge(side, opts).Merge(later, laterOpts)
		if plan := f.Explain(); !strings.Contains(plan, "broadcast if small and its keys unique") {
			t.Fatalf("the plan does not say the keys decide:\n%s", plan)
		}
		checkBroadcastRight(t, ctx, f, c.broadcast)
		want := left.Merge(side, shuffled).Merge(later, laterOpts)
		checkRows(t, canonical(tableRows(t, compute(t, ctx, f))), canonical(tableRows(t, compute(t, ctx, want))), 0)
	}
}

// A side computed first that reads a step another step reads too (a
// decorrelated SQL subquery's keys, read from the rows the query goes on
// with) holds that step, which the other then reads where it is held: the
// adapted plan reads the left files once, and the answer is the
// reference's.
func TestAdaptiveHoldsShared(t *testing.T) {
	ctx := newClient(t)
	rows, left, right := adaptFiles(t, ctx, 32)
	shared := left.Filter(dataframe.Col("ID").Mod(int64(100)).Eq(int64(7))).Select("KI", "ID") // rows of every file
	// The keys are computed from both columns, as the other reader reads
	// them, so that both read one step (pruned alike).
	sideKeys := shared.WithColumn("KI", dataframe.Col("KI").Add(dataframe.Col("ID").Mul(int64(0)))).Select("KI")
	semi := right.Merge(sideKeys, dataframe.MergeOptions{How: dataframe.Semi, On: []string{"KI"}, BroadcastBytes: 1})
	f := dataframe.Concat(semi.Select("KI"), shared.Select("KI", "ID")).Select("KI")
	if plan := f.Explain(); !strings.Contains(plan, "its right side computed first") {
		t.Fatalf("plan does not settle the semi join on the keys' size:\n%s", plan)
	}
	plan, err := f.ExplainAdapted(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(plan, "read-parquet"); n != 1 {
		t.Fatalf("%d reads, want the right files' alone, the left's held:\n%s", n, plan)
	}
	var keys []any
	have := map[any]bool{} // null keys match, as Merge's
	for _, r := range rows {
		if r.ID%100 == 7 {
			keys = append(keys, kiOf(r.KI))
			have[kiOf(r.KI)] = true
		}
	}
	var want [][]any
	for _, r := range rightRows(600) {
		if have[kiOf(r.KI)] {
			want = append(want, []any{kiOf(r.KI)})
		}
	}
	for _, k := range keys {
		want = append(want, []any{k})
	}
	checkRows(t, canonical(tableRows(t, compute(t, ctx, f))), canonical(want), 0)
}

func kiOf(k *int64) any {
	if k == nil {
		return nil
	}
	return *k
}

// adaptFiles writes 400 random rows (of seed) as four Parquet files and
// rightRows(600) as three, and reads each back a partition a file.
func adaptFiles(t *testing.T, ctx context.Context, seed int64) (rows []testRow, left, right *dataframe.Frame) {
	t.Helper()
	dir := t.TempDir()
	rows = genRows(seed, 400)
	if _, err := arrowFrame(t, rows, []int{100, 100, 100, 100}).ToParquet(ctx, filepath.Join(dir, "left"), dataframe.ParquetWriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := dataframe.FromRecords(rightRows(600), 3).ToParquet(ctx, filepath.Join(dir, "right"), dataframe.ParquetWriteOptions{}); err != nil {
		t.Fatal(err)
	}
	one := dataframe.ParquetOptions{PartitionSize: 1}
	return rows, dataframe.ReadParquet(filepath.Join(dir, "left"), one), dataframe.ReadParquet(filepath.Join(dir, "right"), one)
}

// checkBroadcastRight fails unless the adapted plan of f broadcasts a
// join's right side exactly where want says.
func checkBroadcastRight(t *testing.T, ctx context.Context, f *dataframe.Frame, want bool) {
	t.Helper()
	plan, err := f.ExplainAdapted(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Contains(plan, "(broadcast right"); got != want {
		t.Fatalf("broadcast %v, want %v:\n%s", got, want, plan)
	}
}

// rightKept are the rows of rightRows(600) whose V keep keeps.
func rightKept(keep func(v int64) bool) []rightRow {
	var kept []rightRow
	for _, r := range rightRows(600) {
		if keep(r.V) {
			kept = append(kept, r)
		}
	}
	return kept
}

// An aggregation computes its partial results first (of its first
// partitions only, where it has 16 or more) and, by their size, combines
// them in a tree into one sorted partition or by a shuffle on the keys over
// several, unsorted; either way the result is the reference's, and
// ExplainAdapted says which way ran. SplitOut(1) asks for one partition,
// which the shuffled outputs are concatenated and sorted into.
func TestAggregationStrategy(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(33, 900)
	aggs := make([]dataframe.Agg, len(allAggs))
	for i, a := range allAggs {
		aggs[i] = a.agg
	}
	for _, c := range []struct {
		name     string
		limit    int64 // the partial results' size above which they shuffle
		shuffled bool
	}{{"few groups", 1 << 40, false}, {"many groups", 0, true}} {
		restore := dataframe.SetManyGroupsBytes(c.limit)
		for _, keys := range [][]string{{"K"}, {"ID"}, {"B", "KI"}} {
			cols, types := allAggsColumns(keys)
			want := refGroupBy(rows, keys, allAggs)
			for _, split := range []int{0, 1} {
				for _, layout := range [][]int{{200, 300, 100, 250, 50}, slices.Repeat([]int{50}, 18)} {
					t.Run(fmt.Sprintf("%s/%v/splitout%d/%dparts", c.name, keys, split, len(layout)), func(t *testing.T) {
						f := arrowFrame(t, rows, layout).GroupBy(keys...).SplitOut(split).Agg(aggs...)
						if plan := f.Explain(); !strings.Contains(plan, "partial results computed first") {
							t.Fatalf("the plan does not settle the aggregation on its partials:\n%s", plan)
						}
						plan, err := f.ExplainAdapted(ctx)
						if err != nil {
							t.Fatal(err)
						}
						if got := strings.Contains(plan, "many groups: shuffle by the keys"); got != c.shuffled {
							t.Fatalf("shuffled %v, want %v:\n%s", got, c.shuffled, plan)
						}
						if got := strings.Contains(plan, "then concatenated and sorted"); got != (c.shuffled && split == 1) {
							t.Fatalf("concatenated %v with SplitOut(%d):\n%s", got, split, plan)
						}
						held, err := f.Persist(ctx)
						if err != nil {
							t.Fatal(err)
						}
						defer held.Release()
						if n := held.NumPartitions(); (n > 1) != (c.shuffled && split == 0) {
							t.Errorf("%d partitions with SplitOut(%d)", n, split)
						}
						tb := compute(t, ctx, held)
						if c.shuffled && split == 0 {
							// Split over several partitions, unsorted.
							checkTableAnyOrder(t, f, tb, cols, types, want, 1e-9)
							return
						}
						checkTable(t, f, tb, cols, types, want, 1e-9)
					})
				}
			}
		}
		restore()
	}
}
