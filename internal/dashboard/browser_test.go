package dashboard_test

import (
	"context"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/browsertest"
)

var screenshots = flag.String("screenshots", "", "directory to write the dashboard's screenshots to (docs/ keeps them); default a temporary one")

// held counts the test-held tasks that started; each then waits on release.
var (
	held    atomic.Int64
	release = make(chan struct{})
	hold    = dusk.Register("test-held", func(ctx context.Context, x int) (int, error) {
		held.Add(1)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return x, nil
	})
	// A kind whose name is longer than a box of the Graph page is wide.
	longName = dusk.Register("test-a-kind-whose-name-is-much-longer-than-its-box", func(_ context.Context, x int) (int, error) {
		return x, nil
	})
)

// The dashboard in a real browser, during a running job: the status page
// draws the task stream, the progress of the kinds that ran and the two
// workers' memory bars; the workers page lists both; the graph page draws a
// box per kind whose labels fit. Screenshots of the three are written (to
// docs/ with -screenshots ../../docs).
func TestDashboardInABrowser(t *testing.T) {
	browsertest.Chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	deadline, _ := ctx.Deadline()
	c, err := dusk.NewClient(ctx, dusk.Workers(2), dusk.ThreadsPerWorker(2), dusk.MemoryLimit(512<<20),
		dusk.MemoryFractions(dusk.Fractions{Target: 0.02, Spill: 100, Pause: 100}), dusk.Dashboard("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cctx := dusk.WithClient(ctx, c)
	base := strings.TrimSuffix(c.DashboardLink(), "/status")

	// A job that ran (a shuffle, results spilled past a small target)...
	rows := make([]row, 200000)
	for i := range rows {
		rows[i] = row{K: int64(i % 1000), V: int64(i)}
	}
	// (kept referenced to the end: a persisted frame the program drops is
	// released when collected, and its kinds would leave the progress panel)
	done, err := dataframe.FromRecords(rows, 16).GroupBy("K").SplitOut(8).Agg(dataframe.Sum("V").As("S")).Persist(cctx)
	if err != nil {
		t.Fatal(err)
	}
	defer done.Release()
	// ...and one running: tasks held until the pages are drawn.
	args := make([]int, 12)
	for i := range args {
		args[i] = i
	}
	// (the long-named kind first: the held tasks take every thread)
	long, err := longName.Map(cctx, args[:3])
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range long {
		if _, err := f.Result(cctx); err != nil {
			t.Fatal(err)
		}
		// Held to the end, as done is: futures the program drops are
		// released when collected, and their kind leaves the graph.
		defer f.Release()
	}
	futs, err := hold.Map(cctx, args)
	if err != nil {
		t.Fatal(err)
	}
	defer close(release)
	defer func() {
		for _, f := range futs { // held to the end, as done is
			f.Release()
		}
	}()

	dir := *screenshots
	if dir == "" {
		dir = t.TempDir()
	}
	bctx := browsertest.Start(t, ctx)

	// run runs a browser action, failing the test on an error.
	run := func(a chromedp.Action[any]) any {
		t.Helper()
		v, err := chromedp.Run(bctx, a)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	eval := func(expr string) any { return run(chromedp.Evaluate[any](expr)) }
	// poll waits for expr to hold, as long as the test's context allows
	// (chromedp's own 30 s ran out on a loaded 2-core CI machine).
	poll := func(expr string) any {
		t.Helper()
		v, err := chromedp.Run(bctx, chromedp.Poll[any](expr, chromedp.WithPollingTimeout(time.Until(deadline))))
		if err != nil {
			t.Fatalf("waiting for %s: %v", expr, err)
		}
		return v
	}
	shot := func() []byte {
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		return png
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(base+"/status")); err != nil {
		t.Fatal(err)
	}
	// Drawn from the event stream (a few updates, for the rate's chart):
	// the stream's bars, both memory bars, and the held tasks running in
	// the progress panel.
	poll(`Number(document.body.dataset.updates || 0) >= 6 &&
		Number(document.querySelector("#stream").dataset.drawn || 0) > 0 &&
		document.querySelectorAll("#memory .worker-mem").length == 2 &&
		[...document.querySelectorAll(".progress-row")].some(r => r.dataset.prefix == "test-held")`)
	memoryRows := eval(`document.querySelectorAll("#memory .worker-mem").length`)
	progressRows := eval(`document.querySelectorAll(".progress-row").length`)
	running, _ := eval(`[...document.querySelectorAll(".progress-row")].find(r => r.dataset.prefix == "test-held").textContent`).(string)
	status := shot()
	if err := chromedp.Do(bctx, chromedp.Navigate(base+"/workers")); err != nil {
		t.Fatal(err)
	}
	poll(`document.querySelectorAll("#worker-table tbody tr").length == 2`)
	workerRows := eval(`document.querySelectorAll("#worker-table tbody tr").length`)
	workers := shot()

	// A held task's page: it is not finished (running, or queued behind
	// the four that run).
	if err := chromedp.Do(bctx, chromedp.Navigate(base+"/tasks?key="+url.QueryEscape(string(futs[0].Key())))); err != nil {
		t.Fatal(err)
	}
	poll(`["processing", "queued", "waiting"].includes(document.querySelector(".task-state")?.textContent) &&
		document.querySelector(".task-key")?.textContent.startsWith("test-held")`)
	// The Graph page: a box for each kind, the long name cut to its box,
	// and no box's name, bar and count overlapping.
	if err := chromedp.Do(bctx, chromedp.Navigate(base+"/graph")); err != nil {
		t.Fatal(err)
	}
	poll(`[...document.querySelectorAll(".graph-node")].some(n => n.dataset.prefix.startsWith("test-a-kind-whose"))`)
	bad, _ := eval(`(() => {
		const inside = (a, b) => a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.width <= b.x + b.width + 0.5 && a.y + a.height <= b.y + b.height + 0.5;
		const apart = (a, b) => a.y + a.height <= b.y + 0.5 || b.y + b.height <= a.y + 0.5 || a.x + a.width <= b.x + 0.5 || b.x + b.width <= a.x + 0.5;
		const bad = [];
		for (const box of document.querySelectorAll(".graph-node")) {
			const k = box.dataset.prefix, b = box.getBBox();
			const label = [...document.querySelectorAll(".graph-label")].find(e => e.dataset.prefix == k).getBBox();
			const count = [...document.querySelectorAll(".graph-count")].find(e => e.dataset.prefix == k).getBBox();
			if (!inside(label, b) || !inside(count, b) || !apart(label, count)) bad.push(k);
		}
		return bad.join(", ");
	})()`).(string)
	if bad != "" {
		t.Errorf("graph page: the labels of %s overflow their box or overlap their count", bad)
	}
	graphPage := shot()
	cut, _ := eval(`[...document.querySelectorAll(".graph-label")].find(e => e.dataset.prefix.startsWith("test-a-kind-whose")).textContent`).(string)
	if !strings.HasSuffix(cut, "…") || !strings.HasPrefix(cut, "test-a-kind") {
		t.Errorf("the long kind's label reads %q, want it cut with an ellipsis", cut)
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(base+"/logs")); err != nil {
		t.Fatal(err)
	}
	poll(`[...document.querySelectorAll("#log-table tbody tr")].some(r => r.textContent.includes("worker joined"))`)
	if memoryRows != 2.0 || workerRows != 2.0 || progressRows.(float64) < 3 {
		t.Errorf("drawn: %d memory bars, %d worker rows, %d progress rows", memoryRows, workerRows, progressRows)
	}
	if !strings.Contains(running, "0 / 12") {
		t.Errorf("the held tasks' progress reads %q, want none of 12 finished", running)
	}
	for name, png := range map[string][]byte{"dashboard-status.png": status, "dashboard-workers.png": workers, "dashboard-graph.png": graphPage} {
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n := held.Load(); n == 0 {
		t.Error("no held task started")
	}
}
