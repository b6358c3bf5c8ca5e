package dusk

import (
	"fmt"
	"testing"

	"github.com/duskdata/dusk/dataframe"
)

type wideRow struct {
	ID1, ID2, ID3 string
	ID4, ID5, ID6 int64
	V1, V2        int64
	V3            float64
}

// A query over two of a persisted frame's nine columns, whose partitions
// were all spilled, reads back those two columns from disk and no others:
// the bytes read are a small share of those spilled, the partitions stay
// on disk, and the answer equals a plain sum.
func TestProjectionReadsSpilledColumns(t *testing.T) {
	// A target of nothing: every result goes to disk as soon as it is made.
	c := newTestClient(t, Workers(1), ThreadsPerWorker(1), MemoryLimit(256<<20),
		MemoryFractions(Fractions{Target: 1e-9, Spill: 100, Pause: 100}), LocalDirectory(t.TempDir()))
	ctx := testCtx(t, c)
	rows := make([]wideRow, 40_000)
	want := map[string]int64{}
	for i := range rows {
		r := wideRow{ID1: fmt.Sprintf("id%03d", i%17), ID2: fmt.Sprintf("id%03d", i%101), ID3: fmt.Sprintf("id%010d", i*7919%40_000),
			ID4: int64(i % 13), ID5: int64(i % 29), ID6: int64(i), V1: int64(i % 5), V2: int64(i % 15), V3: float64(i) / 7}
		rows[i] = r
		want[r.ID1] += r.V1
	}
	p, err := dataframe.FromRecords(rows, 8).Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	store := c.local.Workers[0].Store()
	untilStores(t, ctx, c, "the partitions have left memory", func() bool { return store.Managed() == 0 })
	spilled, before := store.Spilled(), store.Stats()

	got, err := p.GroupBy("ID1").Agg(dataframe.Sum("V1")).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	rec := got.Record()
	if int(rec.NumRows()) != len(want) {
		t.Fatalf("%d groups, want %d", rec.NumRows(), len(want))
	}
	for i := range int(rec.NumRows()) {
		k, v := rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i)
		if fmt.Sprint(want[k]) != v {
			t.Errorf("group %s: sum %s, want %d", k, v, want[k])
		}
	}
	after := store.Stats()
	read, projections := after.ReadBytes-before.ReadBytes, after.Projections-before.Projections
	if projections != 8 {
		t.Errorf("%d projected reads; want the 8 partitions read by column", projections)
	}
	// ID1 and V1 are about a seventh of the bytes; the partial aggregates
	// read back whole are tiny.
	if read > spilled/4 {
		t.Errorf("read %d bytes of the %d spilled to answer over 2 of 9 columns", read, spilled)
	}
	t.Logf("read back %d of %d bytes spilled", read, spilled)
}
