package dashboard_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/dashboard"
)

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

	var st dashboard.Status
	getJSON(t, base+"/api/status?since=0", &st)
	workers := map[string]int{}
	for _, w := range st.Workers {
		workers[string(w.ID)] = w.NThreads
	}
	if len(workers) != 2 {
		t.Fatalf("%d workers in the status, want 2", len(workers))
	}
	kinds := map[string]int{}
	for _, r := range st.Stream {
		threads, ok := workers[r.Worker]
		if !ok || r.Thread < 0 || r.Thread >= threads || r.Start > r.Stop || r.Key == "" {
			t.Errorf("record %+v: unknown worker or thread, or times out of order", r)
		}
		kinds[r.Prefix]++
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
	if !slices.ContainsFunc(st.Workers, func(w dashboard.Worker) bool { return w.Memory.SpilledTotal > 0 }) {
		t.Errorf("no worker reports spilling: %+v", st.Workers)
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

	// The event stream's first event is a status like the one above.
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	resp.Body.Close()
	if err != nil || !strings.HasPrefix(line, "data: ") {
		t.Fatalf("event stream began with %q (%v)", line, err)
	}
	var ev dashboard.Status
	if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev); err != nil || len(ev.Workers) != 2 {
		t.Fatalf("event %q: %v", line, err)
	}

	tab, err := sums.Agg(dataframe.Sum("S")).Compute(dusk.WithClient(ctx, c))
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Release()
	if got := tab.Record().Column(0).(*array.Int64).Value(0); got != want {
		t.Errorf("sum %d, want %d", got, want)
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
