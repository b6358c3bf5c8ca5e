package dusk

import (
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe"
)

// joinGate holds the partition-wise step before the join's shuffle, which
// runs fused into the shuffle's transfers.
var joinGate = newGate(0)

func init() {
	dataframe.RegisterFunc("test-gated-copy", func(rec arrow.Record) (arrow.Record, error) {
		joinGate.at()
		rec.Retain()
		return rec, nil
	})
}

type lossRow struct {
	K int64
	V int64
}

// A hash-shuffle join whose worker dies while pieces are moving restarts
// its shuffle and still gives the join's answer. The worker dies once 9
// of the 18 transfers have pushed their pieces and the tenth has begun;
// the transfers running again after (more than 18 in all) show that the
// shuffle was under way when it died.
func TestJoinSurvivesWorkerLoss(t *testing.T) {
	joinGate = newGate(9)
	defer joinGate.Open()
	c := newTestClient(t, Workers(3), ThreadsPerWorker(1))
	ctx := testCtx(t, c)
	var left, right []lossRow
	for i := range 3000 {
		left = append(left, lossRow{K: int64(i % 500), V: int64(i)})
	}
	for i := range 400 {
		right = append(right, lossRow{K: int64(i * 2), V: int64(-i)})
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "K", Type: arrow.PrimitiveTypes.Int64}, {Name: "V", Type: arrow.PrimitiveTypes.Int64}}, nil)
	l := dataframe.FromRecords(left, 12).MapPartitions("test-gated-copy", schema)
	r := dataframe.FromRecords(right, 6).MapPartitions("test-gated-copy", schema)
	f := l.Merge(r, dataframe.MergeOptions{On: []string{"K"}, BroadcastBytes: -1})

	done := make(chan error, 1)
	var got *dataframe.Table
	go func() {
		var err error
		got, err = f.Compute(ctx)
		done <- err
	}()
	select {
	case <-joinGate.reached:
	case err := <-done:
		t.Fatalf("the join ended before its tenth transfer began: %v", err)
	}
	loseWorker(t, ctx, c, 1, joinGate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if n := joinGate.calls.Load(); n <= 18 {
		t.Fatalf("the transfers ran %d times: the shuffle did not start again, so the worker was not lost while it ran", n)
	}

	var want []string
	for _, a := range left {
		for _, b := range right {
			if a.K == b.K {
				want = append(want, fmt.Sprint(a.K, a.V, b.V))
			}
		}
	}
	rec := got.Record()
	var have []string
	for i := range int(rec.NumRows()) {
		have = append(have, fmt.Sprint(rec.Column(0).ValueStr(i), " ", rec.Column(1).ValueStr(i), " ", rec.Column(2).ValueStr(i)))
	}
	slices.Sort(want)
	slices.Sort(have)
	if !slices.Equal(have, want) {
		t.Fatalf("%d rows, want %d; first %v, want %v", len(have), len(want), have[:min(3, len(have))], want[:min(3, len(want))])
	}
}
