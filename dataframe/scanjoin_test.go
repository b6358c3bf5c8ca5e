package dataframe_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe"
)

// randomKeys draws n keys below max in no order, a null one in nullEvery
// (0: none).
func randomKeys(r *rand.Rand, n, max, nullEvery int) []*int64 {
	keys := make([]*int64, n)
	for i := range keys {
		if nullEvery > 0 && r.IntN(nullEvery) == 0 {
			continue
		}
		v := int64(r.IntN(max))
		keys[i] = &v
	}
	return keys
}

// keysBelow is the keys 0 to n-1.
func keysBelow(n int) []*int64 {
	keys := make([]*int64, n)
	for i := range keys {
		v := int64(i)
		keys[i] = &v
	}
	return keys
}

// TestJoinScansWithKeyFilter joins a large side read from Parquet files
// with a small one broadcast: each task reads its partition of the large
// side with the small side's filter of its keys as one of the reader's
// filters, and the rows are what a nested loop over them gives, for inner
// joins with the small side on either hand and semi joins, null keys
// meeting each other, a small side that holds most keys (whose filter the
// tasks stop asking), and one that is a join's result, tiny beside the
// large side.
func TestJoinScansWithKeyFilter(t *testing.T) {
	ctx := newClient(t)
	r := rand.New(rand.NewPCG(11, 12))
	dir := t.TempDir()
	bigKeys, denseKeys := randomKeys(r, 12000, 50000, 50), randomKeys(r, 12000, 1200, 0)
	bigFiles := keyFiles(t, dir, "big", "v", arrow.PrimitiveTypes.Int32, bigKeys, 2000, 500)
	denseFiles := keyFiles(t, dir, "dense", "v", arrow.PrimitiveTypes.Int32, denseKeys, 2000, 500)
	distinct := keysBelow(1000) // most of denseKeys' values
	for _, c := range []struct {
		name      string
		how       dataframe.How
		smallLeft bool
		small     []*int64
		dense     bool // the large side's keys are few, most of them in small
		joined    bool // small is the end of a join of its own, tiny beside the large side
	}{
		{"inner", dataframe.Inner, false, randomKeys(r, 300, 50000, 0), false, false},
		{"inner/nulls", dataframe.Inner, false, randomKeys(r, 300, 50000, 30), false, false},
		{"semi", dataframe.Semi, false, randomKeys(r, 300, 50000, 30), false, false},
		{"inner/small-left", dataframe.Inner, true, randomKeys(r, 300, 50000, 30), false, false},
		{"inner/most-keys", dataframe.Inner, false, distinct, true, false},
		{"inner/small-join", dataframe.Inner, false, randomKeys(r, 120, 50000, 30), false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			small := dataframe.ReadParquet(keyFiles(t, t.TempDir(), "small", "w", arrow.PrimitiveTypes.Int32, c.small, len(c.small), 500), dataframe.ParquetOptions{})
			if c.joined { // the same rows, as a join's: each key meets itself
				small = small.Join(small.Select("k"), dataframe.Semi, "k")
			}
			big, bigKeys := dataframe.ReadParquet(bigFiles, dataframe.ParquetOptions{PartitionSize: 1}), bigKeys
			if c.dense {
				big, bigKeys = dataframe.ReadParquet(denseFiles, dataframe.ParquetOptions{PartitionSize: 1}), denseKeys
			}
			left, right, lkeys, rkeys := big, small, bigKeys, c.small
			if c.smallLeft {
				left, right, lkeys, rkeys = small, big, c.small, bigKeys
			}
			f := left.Join(right, c.how, "k")
			if plan := f.Explain(); !strings.Contains(plan, "read with a filter of the broadcast keys") {
				t.Fatalf("no partition read with a filter:\n%s", plan)
			}
			tb := compute(t, ctx, f)
			defer tb.Release()
			sameRows(t, tb, nestedJoin(c.how, lkeys, rkeys, nil, nil))
		})
	}
}

// nestedJoin is what a nested loop over the left and right keys gives, of
// the rows keptL and keptR keep (nil: all): "k i j" for each pair of an
// inner join, "k i" for each left row of a semi join.
func nestedJoin(how dataframe.How, lkeys, rkeys []*int64, keptL, keptR func(int) bool) []string {
	all := func(int) bool { return true }
	if keptL == nil {
		keptL = all
	}
	if keptR == nil {
		keptR = all
	}
	byKey := map[string][]int{}
	for j, k := range rkeys {
		if keptR(j) {
			byKey[keyString(k)] = append(byKey[keyString(k)], j)
		}
	}
	var want []string
	for i, k := range lkeys {
		if !keptL(i) {
			continue
		}
		matches := byKey[keyString(k)]
		switch {
		case how == dataframe.Inner:
			for _, j := range matches {
				want = append(want, fmt.Sprintf("%s %d %d", keyString(k), i, j))
			}
		case how == dataframe.Semi && len(matches) > 0:
			want = append(want, fmt.Sprintf("%s %d", keyString(k), i))
		}
	}
	return want
}

// TestJoinFiltersHeldProbe joins a large side held in the workers' memory
// and filtered with a small one broadcast: each join task filters its
// partition of the large side itself, asking the small side's filter of
// its keys of the rows the predicate keeps, and the rows are what a
// nested loop over the filtered rows gives, for inner joins with the small
// side on either hand and semi joins, null keys, and a small side that
// holds most keys (whose filter the tasks stop asking).
func TestJoinFiltersHeldProbe(t *testing.T) {
	ctx := newClient(t)
	r := rand.New(rand.NewPCG(15, 16))
	dir := t.TempDir()
	bigKeys, denseKeys := randomKeys(r, 12000, 50000, 50), randomKeys(r, 12000, 1200, 0)
	hold := func(files string) *dataframe.Frame {
		f, err := dataframe.ReadParquet(files, dataframe.ParquetOptions{PartitionSize: 1}).Persist(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Release)
		return f
	}
	big := hold(keyFiles(t, dir, "big", "v", arrow.PrimitiveTypes.Int32, bigKeys, 2000, 500))
	dense := hold(keyFiles(t, dir, "dense", "v", arrow.PrimitiveTypes.Int32, denseKeys, 2000, 500))
	distinct := keysBelow(1000)
	kept := func(i int) bool { return i >= 500 && i < 9000 }
	pred := dataframe.Col("v").Ge(500).And(dataframe.Col("v").Lt(9000))
	for _, c := range []struct {
		name      string
		how       dataframe.How
		smallLeft bool
		small     []*int64
		dense     bool
	}{
		{"inner", dataframe.Inner, false, randomKeys(r, 300, 50000, 30), false},
		{"semi", dataframe.Semi, false, randomKeys(r, 300, 50000, 30), false},
		{"inner/small-left", dataframe.Inner, true, randomKeys(r, 300, 50000, 30), false},
		{"inner/most-keys", dataframe.Inner, false, distinct, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			small := dataframe.ReadParquet(keyFiles(t, t.TempDir(), "small", "w", arrow.PrimitiveTypes.Int32, c.small, len(c.small), 500), dataframe.ParquetOptions{})
			large, largeKeys := big, bigKeys
			if c.dense {
				large, largeKeys = dense, denseKeys
			}
			large = large.Filter(pred)
			left, right := large, small
			if c.smallLeft {
				left, right = small, large
			}
			f := left.Join(right, c.how, "k")
			if plan := f.Explain(); !strings.Contains(plan, "filtered with a filter of the broadcast keys") {
				t.Fatalf("no partition filtered with the keys' filter:\n%s", plan)
			}
			want := nestedJoin(c.how, largeKeys, c.small, kept, nil)
			if c.smallLeft {
				want = nestedJoin(c.how, c.small, largeKeys, nil, kept)
			}
			tb := compute(t, ctx, f)
			defer tb.Release()
			sameRows(t, tb, want)
		})
	}
}

// TestJoinScanShared joins a file's rows to a small table's twice, as SQL's
// TPC-H q17 does (the lines of the chosen parts, and their count per
// part): the file is read with the keys' filter once, for both.
func TestJoinScanShared(t *testing.T) {
	ctx := newClient(t)
	r := rand.New(rand.NewPCG(13, 14))
	dir := t.TempDir()
	bigKeys, smallKeys := randomKeys(r, 12000, 50000, 50), randomKeys(r, 300, 50000, 0)
	big := dataframe.ReadParquet(keyFiles(t, dir, "big", "v", arrow.PrimitiveTypes.Int32, bigKeys, 2000, 500), dataframe.ParquetOptions{PartitionSize: 1})
	small := dataframe.ReadParquet(keyFiles(t, dir, "small", "w", arrow.PrimitiveTypes.Int32, smallKeys, 300, 500), dataframe.ParquetOptions{})
	counts := big.Join(small, dataframe.Semi, "k").GroupBy("k").Agg(dataframe.Size().As("n"))
	f := small.Join(big, dataframe.Inner, "k").Join(counts, dataframe.Inner, "k")
	g, _, err := f.Graph()
	if err != nil {
		t.Fatal(err)
	}
	scans := 0
	for _, task := range g.Tasks() {
		if task.Op == "df-join-scan" {
			scans++
		}
	}
	if scans != big.NumPartitions() {
		t.Fatalf("%d reads of the file's %d partitions with the keys' filter, want one each:\n%s", scans, big.NumPartitions(), f.Explain())
	}
	bigByKey := map[string][]int{}
	for i, k := range bigKeys {
		bigByKey[keyString(k)] = append(bigByKey[keyString(k)], i)
	}
	var want []string
	for j, k := range smallKeys {
		rows := bigByKey[keyString(k)]
		for _, i := range rows {
			want = append(want, fmt.Sprintf("%s %d %d %d", keyString(k), j, i, len(rows)))
		}
	}
	tb := compute(t, ctx, f)
	defer tb.Release()
	sameRows(t, tb, want)
}
