package daemon_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/internal/dashboard"
)

// `dusk scheduler` serves its dashboard where --dashboard-address says, a
// client over gRPC learns the link as it connects, and the status there
// lists the worker processes and the tasks they ran; --pprof serves Go's
// profiles beside it.
func TestSchedulerServesDashboard(t *testing.T) {
	sched := start(t, bins.dusktest, "scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "127.0.0.1:0", "--pprof")
	start(t, bins.dusktest, "worker", "--scheduler", sched.addr, "--host", "127.0.0.1", "--nthreads", "2",
		"--name", "w0", "--local-directory", t.TempDir())
	ctx := testCtx(t)
	c, err := dusk.NewClient(ctx, dusk.Address(sched.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.WaitForWorkers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	link := c.DashboardLink()
	if !strings.HasPrefix(link, "http://127.0.0.1:") || !strings.HasSuffix(link, "/status") {
		t.Fatalf("dashboard link %q", link)
	}
	cctx := dusk.WithClient(ctx, c)
	for i := range 10 {
		f, err := testInc.Submit(cctx, i)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := f.Result(cctx); err != nil || v != i+1 {
			t.Fatalf("inc(%d) = %v, %v", i, v, err)
		}
	}
	resp, err := http.Get(strings.TrimSuffix(link, "/status") + "/api/status?since=0")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var st dashboard.Status
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("status %s: %v", b, err)
	}
	if len(st.Workers) != 1 || st.Workers[0].Name != "w0" || st.Workers[0].NThreads != 2 {
		t.Errorf("workers %+v, want w0 with 2 threads", st.Workers)
	}
	ran := 0
	for _, r := range st.Stream {
		if r.Prefix == "test-inc" && r.Worker == string(st.Workers[0].ID) {
			ran++
		}
	}
	if ran != 10 {
		t.Errorf("%d test-inc tasks in the stream, want 10: %+v", ran, st.Stream)
	}
	// The same over gRPC: the client's task stream and progress.
	recs, err := c.TaskStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(recs); n != 10 || recs[0].Prefix != "test-inc" || !recs[0].Start.Before(recs[0].Stop) {
		t.Errorf("the client's task stream has %d records, want the 10 test-inc: %+v", n, recs)
	}
	if again, err := c.TaskStream(ctx); err != nil || len(again) != 0 {
		t.Errorf("asked again: %d records (%v), want none new", len(again), err)
	}
	prog, err := c.Progress(ctx)
	if err != nil || len(prog) != 1 || prog[0].Prefix != "test-inc" || prog[0].Memory != 10 {
		t.Errorf("progress %+v (%v), want the 10 test-inc results in memory", prog, err)
	}
	// --pprof serves Go's profiles there.
	resp, err = http.Get(strings.TrimSuffix(link, "/status") + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "goroutine profile") {
		t.Errorf("/debug/pprof/goroutine: %s %.200s", resp.Status, b)
	}
}
