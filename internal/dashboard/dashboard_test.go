package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow/array"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/dashboard"
	"github.com/duskdata/dusk/internal/protocol"
)

var panics = dusk.Register("test-panics", func(_ context.Context, x int) (int, error) {
	panic(fmt.Sprintf("test panic %d", x))
})

type row struct {
	K int64
	V int64
}

// A local cluster serves its dashboard; during a job with a shuffle and
// spills, the status says what ran (every task a record of its worker and
// thread), where the results are (progress by kind), and the workers'
// memory, spills included; the pages and their scripts are served, and
// the event stream carries the same status.
func TestDashboardOfARunningJob(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A target of nothing: every result goes to disk as soon as it is made.
	c, err := dusk.NewClient(ctx, dusk.Workers(2), dusk.ThreadsPerWorker(2), dusk.MemoryLimit(256<<20),
		dusk.MemoryFractions(dusk.Fractions{Target: 1e-9, Spill: 100, Pause: 100}), dusk.Dashboard("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	link := c.DashboardLink()
	base, ok := strings.CutSuffix(link, "/status")
	if !ok || !strings.HasPrefix(link, "http://127.0.0.1:") {
		t.Fatalf("dashboard link %q", link)
	}

	rows := make([]row, 20000)
	var want int64
	for i := range rows {
		rows[i] = row{K: int64(i % 97), V: int64(i)}
		want += int64(i)
	}
	const parts, outputs = 8, 4
	sums, err := dataframe.FromRecords(rows, parts).GroupBy("K").SplitOut(outputs).
		Agg(dataframe.Sum("V").As("S")).Persist(dusk.WithClient(ctx, c))
	if err != nil {
		t.Fatal(err)
	}

	// The event stream carries statuses until the workers' reports (every
	// second) say they spilled.
	waitEvents(t, ctx, base, func(ev dashboard.Status) bool {
		return slices.ContainsFunc(ev.Workers, func(w dashboard.Worker) bool { return w.Memory.SpilledTotal > 0 })
	})

	var st dashboard.Status
	getJSON(t, base+"/api/status?since=0", &st)
	workers := map[string]int{}
	for _, w := range st.Workers {
		workers[string(w.ID)] = w.NThreads
	}
	if len(workers) != 2 {
		t.Fatalf("%d workers in the status, want 2", len(workers))
	}
	kinds, io := map[string]int{}, map[string]int{}
	for _, r := range st.Stream {
		threads, ok := workers[r.Worker]
		if r.Kind != "" {
			if !ok || r.Thread != -1 || r.Prefix != r.Kind || r.Start > r.Stop || r.Key == "" || r.Nbytes <= 0 {
				t.Errorf("record %+v: unknown worker, or not on the I/O row, or times out of order", r)
			}
			io[r.Kind]++
			continue
		}
		if !ok || r.Thread < 0 || r.Thread >= threads || r.Start > r.Stop || r.Key == "" {
			t.Errorf("record %+v: unknown worker or thread, or times out of order", r)
		}
		kinds[r.Prefix]++
	}
	// Every result went to disk as it was made: the stream shows the writes.
	if io[protocol.RecordDiskWrite] == 0 {
		t.Errorf("no disk write in the task stream: %v", io)
	}
	for _, kind := range []string{"shuffle-transfer", "shuffle-unpack"} {
		n := 0
		for p, c := range kinds {
			if strings.HasPrefix(p, kind) {
				n += c
			}
		}
		if n == 0 {
			t.Errorf("no %s task in the stream: %v", kind, kinds)
		}
	}
	// The persisted outputs are in memory, in the progress of their kind.
	held := 0
	for _, p := range st.Progress {
		if strings.HasPrefix(p.Prefix, "shuffle-unpack") {
			held += p.Memory
		}
	}
	if held != outputs {
		t.Errorf("progress holds %d unpacked outputs in memory, want %d: %+v", held, outputs, st.Progress)
	}
	// A status asked for since the last record carries no record again.
	var later dashboard.Status
	getJSON(t, base+"/api/status?since="+jsonNum(st.Next), &later)
	if len(later.Stream) != 0 {
		t.Errorf("%d records again after record %d", len(later.Stream), st.Next)
	}

	for path, wantIn := range map[string]string{
		"/status":                          `id="stream"`,
		"/workers":                         `id="worker-table"`,
		"/static/dashboard.js":             "EventSource",
		"/static/vendor/uPlot.iife.min.js": "uPlot",
	} {
		body := get(t, base+path)
		if !strings.Contains(body, wantIn) {
			t.Errorf("%s lacks %q", path, wantIn)
		}
	}

	checkMetrics(t, base+"/metrics", kinds, outputs)
	// The Tasks page's data: a held output where it is and how it ran; a
	// task that panicked, with its error and stack; a key nobody knows.
	for _, r := range st.Stream {
		if !strings.HasPrefix(r.Prefix, "shuffle-unpack") {
			continue
		}
		var task dashboard.Task
		getJSON(t, base+"/api/task?key="+url.QueryEscape(r.Key), &task)
		if task.State != "memory" || len(task.WhoHas) != 1 || string(task.WhoHas[0]) != r.Worker ||
			task.Ran == nil || task.Ran.Worker != r.Worker || task.Ran.Stop-task.Ran.Start != r.Stop-r.Start {
			t.Errorf("task %s: %+v, want in memory on %s as its record says", r.Key, task, r.Worker)
		}
		break
	}
	fut, err := panics.Submit(dusk.WithClient(ctx, c), 7)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fut.Result(dusk.WithClient(ctx, c)); err == nil {
		t.Fatal("a panicking task succeeded")
	}
	var failed dashboard.Task
	getJSON(t, base+"/api/task?key="+url.QueryEscape(string(fut.Key())), &failed)
	if failed.State != "erred" || failed.Err == nil || !strings.Contains(failed.Err.Message, "test panic 7") || !strings.Contains(failed.Err.Stack, "goroutine") {
		t.Errorf("the panicked task: %+v (error %+v)", failed, failed.Err)
	}
	if resp, err := http.Get(base + "/api/task?key=nobody-knows"); err != nil {
		t.Error(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown key: %s", resp.Status)
	}

	// The Graph page's data: each kind with the kinds it takes inputs from.
	var groups []protocol.Group
	getJSON(t, base+"/api/graph", &groups)
	inputsOf := map[string]string{}
	for _, g := range groups {
		inputsOf[strings.SplitN(g.Prefix, "-", 3)[1]] = strings.Join(g.Inputs, " ")
	}
	if !strings.Contains(inputsOf["unpack"], "shuffle-barrier") {
		t.Errorf("the graph by kind: %+v, want the unpacks' inputs to be the barrier", groups)
	}

	// The Logs page's lines: the scheduler's and its local workers'.
	var lines []dashboard.LogLine
	getJSON(t, base+"/api/logs", &lines)
	joined := 0
	for _, l := range lines {
		if l.Message == "worker joined" && strings.Contains(l.Attrs, "worker=inproc://") {
			joined++
		}
	}
	if joined != 2 {
		t.Errorf("%d 'worker joined' lines in the logs, want 2: %+v", joined, lines)
	}
	if resp, err := http.Get(base + "/debug/pprof/"); err != nil {
		t.Error(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusNotFound {
		t.Errorf("profiles served without being asked for: %s", resp.Status)
	}

	tab, err := sums.Agg(dataframe.Sum("S")).Compute(dusk.WithClient(ctx, c))
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Release()
	if got := tab.Record().Column(0).(*array.Int64).Value(0); got != want {
		t.Errorf("sum %d, want %d", got, want)
	}

	// The sum took the outputs of both workers to one: a transfer, in the
	// stream and in the traffic the next reports count: as much sent as
	// received, and the result sent to this client besides.
	var transfer *dashboard.Record
	last := waitEvents(t, ctx, base, func(ev dashboard.Status) bool {
		for i, r := range ev.Stream {
			if r.Kind == protocol.RecordTransfer {
				transfer = &ev.Stream[i]
			}
		}
		var received, sent int64
		for _, w := range ev.Workers {
			received, sent = received+w.Received, sent+w.Sent
		}
		return transfer != nil && received > 0 && sent >= received
	})
	if transfer.Peer == "" || transfer.Peer == transfer.Worker {
		t.Errorf("transfer %+v: from no peer, or from itself", transfer)
	}
	for _, w := range last.Workers {
		if w.LastSeen.IsZero() || w.CPU < 0 {
			t.Errorf("worker %s: last seen %v, CPU %v", w.ID, w.LastSeen, w.CPU)
		}
	}
	fams := parseMetrics(t, base+"/metrics")
	var received, sent float64
	for _, m := range fams["dusk_worker_transferred_bytes_total"].GetMetric() {
		if label(m, "direction") == "received" {
			received += m.GetCounter().GetValue()
		} else {
			sent += m.GetCounter().GetValue()
		}
	}
	if received <= 0 || sent < received {
		t.Errorf("metrics: %v bytes received, %v sent; want some, and as many sent at least", received, sent)
	}
}

// waitEvents reads the dashboard's event stream until done says yes to a
// status, and returns that status.
func waitEvents(t *testing.T, ctx context.Context, base string, done func(dashboard.Status) bool) dashboard.Status {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewReader(resp.Body)
	for {
		line, err := events.ReadString('\n')
		if err != nil {
			t.Fatalf("event stream: %v", err)
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev dashboard.Status
		if err := json.Unmarshal([]byte(data), &ev); err != nil || len(ev.Workers) != 2 {
			t.Fatalf("event %q: %v", line, err)
		}
		if done(ev) {
			return ev
		}
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s (%v)", url, resp.Status, err)
	}
	return string(b)
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(get(t, url)), v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func jsonNum(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// parseMetrics reads url's metrics with Prometheus' own parser.
func parseMetrics(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(get(t, url)))
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return fams
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// checkMetrics parses /metrics with Prometheus' own parser and checks it
// against the job: a duration observed for every task of each kind in the
// stream, two running workers that joined, spills counted, and the
// persisted outputs in memory.
func checkMetrics(t *testing.T, url string, kinds map[string]int, outputs int) {
	t.Helper()
	fams := parseMetrics(t, url)
	observed := map[string]int{}
	for _, m := range fams["dusk_task_duration_seconds"].GetMetric() {
		observed[label(m, "prefix")] = int(m.GetHistogram().GetSampleCount())
	}
	if !maps.Equal(observed, kinds) {
		t.Errorf("durations observed by kind %v, tasks in the stream %v", observed, kinds)
	}
	value := func(fam, l, v string) float64 {
		var sum float64
		for _, m := range fams[fam].GetMetric() {
			if l == "" || label(m, l) == v {
				sum += m.GetGauge().GetValue() + m.GetCounter().GetValue()
			}
		}
		return sum
	}
	if n := value("dusk_workers", "status", "running"); n != 2 {
		t.Errorf("%v running workers, want 2", n)
	}
	if n := value("dusk_worker_events_total", "event", "joined"); n != 2 {
		t.Errorf("%v workers joined, want 2", n)
	}
	if n := value("dusk_worker_spilled_bytes_total", "", ""); n <= 0 {
		t.Errorf("%v bytes spilled, want some", n)
	}
	inMemory := 0.0
	for _, m := range fams["dusk_tasks"].GetMetric() {
		if strings.HasPrefix(label(m, "prefix"), "shuffle-unpack") && label(m, "state") == "memory" {
			inMemory += m.GetGauge().GetValue()
		}
	}
	if inMemory != float64(outputs) {
		t.Errorf("%v unpacked outputs in memory by the metrics, want %d", inMemory, outputs)
	}
	if fams["go_goroutines"] == nil || fams["process_resident_memory_bytes"] == nil {
		t.Error("the Go runtime's and the process's metrics are missing")
	}
}
