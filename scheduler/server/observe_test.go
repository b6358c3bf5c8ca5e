package server

import (
	"fmt"
	"testing"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// The task stream keeps the last streamKept records in order, numbered
// from 0, and returns those since a number that are still kept.
func TestTaskStream(t *testing.T) {
	var ts taskStream
	add := func(n int) {
		for range n {
			k := graph.Key(fmt.Sprintf("op-%d", ts.next))
			ts.record("w", &protocol.TaskFinished{Key: k, Duration: time.Millisecond, Start: time.Unix(0, int64(ts.next))})
		}
	}
	check := func(since uint64, wantFirst, wantLen int) {
		t.Helper()
		recs, next := ts.since(since)
		if next != ts.next || len(recs) != wantLen {
			t.Fatalf("since %d: %d records, next %d; want %d, %d", since, len(recs), next, wantLen, ts.next)
		}
		for i, r := range recs {
			if want := fmt.Sprintf("op-%d", wantFirst+i); string(r.Key) != want || r.Prefix != "op" ||
				r.Start.UnixNano() != int64(wantFirst+i) || r.Stop.Sub(r.Start) != time.Millisecond {
				t.Fatalf("since %d: record %d is %+v, want %s", since, i, r, want)
			}
		}
	}
	check(0, 0, 0)
	add(10)
	check(0, 0, 10)
	check(7, 7, 3)
	check(10, 0, 0)
	add(streamKept) // the first 10 are gone
	check(0, 10, streamKept)
	check(streamKept+5, streamKept+5, 5)
	// A fetched result (no duration) is not a task run.
	ts.record("w", &protocol.TaskFinished{Key: "copy-1"})
	check(streamKept+10, 0, 0)
}
