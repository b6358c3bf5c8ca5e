package daemon_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/internal/dashboard"
)

// `dusk scheduler` serves its dashboard where --dashboard-address says, a
// client over gRPC learns the link as it connects, and the status there
// lists the worker processes and the tasks they ran; --pprof serves Go's
// profiles beside it. Each worker serves its own /metrics (and, with
// --pprof, profiles), which the scheduler links, and sends its log lines
// on to the scheduler's Logs page.
func TestSchedulerServesDashboard(t *testing.T) {
	sched := start(t, bins.dusktest, "scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "127.0.0.1:0", "--pprof")
	start(t, bins.dusktest, "worker", "--scheduler", sched.addr, "--host", "127.0.0.1", "--nthreads", "2",
		"--name", "w0", "--local-directory", t.TempDir(), "--pprof")
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
	// Held until progress is read below: a future collected as garbage
	// releases its result.
	var held []any
	for i := range 10 {
		f, err := testInc.Submit(cctx, i)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := f.Result(cctx); err != nil || v != i+1 {
			t.Fatalf("inc(%d) = %v, %v", i, v, err)
		}
		held = append(held, f)
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
	runtime.KeepAlive(held)
	// A performance report over gRPC: the ten tasks of the run, and the
	// worker process's own profile.
	path := filepath.Join(t.TempDir(), "report.html")
	err = dusk.PerformanceReport(cctx, path, func(ctx context.Context) error {
		futs, err := testInc.Map(ctx, []int{101, 102, 103, 104, 105, 106, 107, 108, 109, 110})
		if err == nil {
			_, err = dusk.Gather(ctx, futs)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(path)
	if !strings.Contains(string(page), `<tr data-kind="test-inc"><td><span class="swatch" data-prefix="test-inc"></span>test-inc</td><td>10</td>`) ||
		!strings.Contains(string(page), "merged (1 process)") || strings.Contains(string(page), "shares its process") {
		t.Errorf("the report lacks the 10 test-inc tasks or the worker's profile:\n%s", page)
	}

	// --pprof serves Go's profiles there, and on the worker's port.
	base, w := strings.TrimSuffix(link, "/status"), st.Workers[0]
	for _, at := range []string{base, "http://" + w.Dashboard} {
		if b, code := httpGet(t, at+"/debug/pprof/goroutine?debug=1"); code != http.StatusOK || !strings.Contains(b, "goroutine profile") {
			t.Errorf("%s/debug/pprof/goroutine: %d %.200s", at, code, b)
		}
	}

	// The worker's /metrics: the twenty tasks it ran, no restart.
	text, code := httpGet(t, "http://"+w.Dashboard+"/metrics")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if code != http.StatusOK || err != nil {
		t.Fatalf("the worker's /metrics: %d %v", code, err)
	}
	var durations uint64
	for _, m := range fams["dusk_worker_task_duration_seconds"].GetMetric() {
		durations += m.GetHistogram().GetSampleCount()
	}
	if durations != 20 || fams["dusk_worker_restarts_total"].GetMetric()[0].GetCounter().GetValue() != 0 ||
		fams["dusk_worker_memory_bytes"] == nil || fams["dusk_worker_transferred_bytes_total"] == nil {
		t.Errorf("the worker's /metrics: %d task durations (want 20: 10 and the report's 10), restarts %v, memory and traffic %v %v", durations,
			fams["dusk_worker_restarts_total"], fams["dusk_worker_memory_bytes"] != nil, fams["dusk_worker_transferred_bytes_total"] != nil)
	}

	// The worker's lines reach the Logs page with its next report: the
	// event stream's updates pace the looking.
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/events", nil)
	events, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer events.Body.Close()
	updates := bufio.NewScanner(events.Body)
	for found := false; !found; {
		if !updates.Scan() {
			t.Fatalf("the event stream ended before a line of the worker's was on the Logs page: %v", updates.Err())
		}
		var lines []dashboard.LogLine
		b, _ := httpGet(t, base+"/api/logs")
		if err := json.Unmarshal([]byte(b), &lines); err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			found = found || l.Worker == string(w.ID) && l.Message == "serving"
		}
	}
}

func httpGet(t *testing.T, url string) (string, int) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), resp.StatusCode
}
