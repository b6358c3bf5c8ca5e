package daemon_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk"
)

var testSleep = dusk.Register("test-sleep", func(_ context.Context, ms int) (int, error) { return ms, nil })

// `dusk cluster` with the local process provider: a client asks for 1 to
// 10 workers (Client.Adapt), which --max-workers caps at 4; a queue of 200
// one-second tasks grows the pool from one worker to those 4, every result
// comes back, and once idle the pool shrinks back to one, the retired
// workers handing their results on.
func TestAdaptiveLocalProcesses(t *testing.T) {
	ctx := testCtxFor(t, 3*time.Minute)
	sched := start(t, bins.dusktest, "cluster", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "none",
		"--workers", "1", "--max-workers", "4", "--adapt-idle", "2s",
		"--", "--nthreads", "10", "--host", "127.0.0.1", "--local-directory", t.TempDir())
	c, err := dusk.NewClient(ctx, dusk.Address(sched.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.WaitForWorkers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.Adapt(ctx, 1, 10); err != nil {
		t.Fatal(err)
	}
	cctx := dusk.WithClient(ctx, c)
	ms := make([]int, 200)
	for i := range ms {
		ms[i] = 1000 + i // distinct arguments: distinct tasks
	}
	futs, err := testSleep.Map(cctx, ms)
	if err != nil {
		t.Fatal(err)
	}
	got, err := dusk.Gather(cctx, futs)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != 1000+i {
			t.Fatalf("task %d returned %d", i, v)
		}
	}
	recs, err := c.TaskStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]int{}
	for _, r := range recs {
		if strings.HasPrefix(string(r.Key), "test-sleep") {
			ran[string(r.Worker)]++
		}
	}
	if len(ran) != 4 {
		for _, r := range recs[:min(5, len(recs))] {
			t.Logf("%+v", r)
		}
		t.Fatalf("the tasks ran on %d workers (%v); want the pool grown to 4", len(ran), ran)
	}
	sched.stderr.waitFor(t, ctx, sched, `adaptive: target workers" target=4`)
	// Idle, the pool goes back to one worker; a result kept meanwhile
	// survives the retirements.
	keep := futs[0]
	for _, f := range futs[1:] {
		f.Release()
	}
	sched.stderr.waitFor(t, ctx, sched, `adaptive: target workers" target=1`)
	for {
		// Counted before asking, so that a worker gone after the answer
		// is a line to wait for, and one gone before it is counted.
		gone := sched.stderr.count("worker retired", "worker lost")
		ws, err := c.Workers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) == 1 {
			break
		}
		sched.stderr.waitForCount(t, ctx, sched, gone+1, "worker retired", "worker lost")
	}
	if v, err := keep.Result(cctx); err != nil || v != 1000 {
		t.Fatalf("a kept result after the pool shrank: %v, %v", v, err)
	}
}
