// Package browsertest drives the headless Chromium that .ci/run installs,
// for the tests and benchmarks that look at the dashboard as a person
// does. Only tests import it.
//
// Must never import: cmd, examples, or bench.
package browsertest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium finds the browser, or skips t where there is none.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on this machine: .ci/run installs Debian's chromium package")
	return ""
}

// Start starts a headless browser for t, a 1400×1000 window, closed when
// t ends, and returns its context for chromedp.
func Start(t testing.TB, ctx context.Context) context.Context {
	t.Helper()
	return start(t, ctx, Chromium(t))
}

func start(t testing.TB, ctx context.Context, exe string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.WindowSize(1400, 1000), chromedp.Flag("disable-gpu", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
	})
	return bctx
}

// Page is a dashboard page open in a browser, or (Listen) its event
// stream read without a browser.
type Page struct {
	t       testing.TB
	ctx     context.Context // the browser's; nil for a listener
	updates atomic.Int64    // a listener's
}

// Listen reads the dashboard's event stream at base (its address without a
// page) for t, as a page does, without drawing anything: what a watching
// browser costs the scheduler, apart from the browser's own work.
func Listen(t testing.TB, ctx context.Context, base string) *Page {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	p := &Page{t: t}
	done := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		<-done
	})
	go func() {
		defer close(done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") {
				var st json.RawMessage
				if json.Unmarshal(sc.Bytes()[len("data: "):], &st) == nil {
					p.updates.Add(1)
				}
			}
		}
	}()
	return p
}

// Watch opens url (a dashboard page) in a fresh browser for t and waits
// until its page has drawn updates from the event stream; the page
// stays open, receiving updates, until t ends. The browser runs at the
// lowest priority (nice 19): a benchmark measures what a watching browser
// costs the cluster, and a viewer's browser draws on the viewer's machine,
// not on the cores the cluster runs on.
func Watch(t testing.TB, ctx context.Context, url string) *Page {
	t.Helper()
	nice := filepath.Join(t.TempDir(), "chromium-niced")
	script := fmt.Sprintf("#!/bin/sh\nexec nice -n 19 %q \"$@\"\n", Chromium(t))
	if err := os.WriteFile(nice, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := &Page{t: t, ctx: start(t, ctx, nice)}
	if err := chromedp.Do(p.ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	// Ten updates in: the browser's own start (seconds of CPU on a small
	// machine) is over before anything is measured.
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[any](`Number(document.body.dataset.updates || 0) >= 10`)); err != nil {
		t.Fatal(err)
	}
	return p
}

// Updates is how many updates the page has drawn (or read).
func (p *Page) Updates() float64 {
	p.t.Helper()
	if p.ctx == nil {
		return float64(p.updates.Load())
	}
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[float64](`Number(document.body.dataset.updates || 0)`))
	if err != nil {
		p.t.Fatal(err)
	}
	return v
}

// Report, deferred at a benchmark's start, reports the updates a second
// the page drew meanwhile ("page-updates/s"), and the CPU the browser's
// processes took meanwhile, in cores ("browser-cores": on a machine whose
// cores the benchmark fills, what the browser took from it); a nil page
// reports none.
func (p *Page) Report(b *testing.B) func() {
	if p == nil {
		return func() {}
	}
	updates, cpu := p.Updates(), p.cpu()
	return func() {
		secs := b.Elapsed().Seconds()
		b.ReportMetric((p.Updates()-updates)/secs, "page-updates/s")
		if p.ctx != nil {
			b.ReportMetric((p.cpu()-cpu).Seconds()/secs, "browser-cores")
		}
	}
}

// cpu is the CPU time of the browser's processes, the browser and its
// descendants, as Linux's /proc counts it (0 elsewhere).
func (p *Page) cpu() time.Duration {
	if p.ctx == nil {
		return 0
	}
	c := chromedp.FromContext(p.ctx)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return 0
	}
	root := c.Browser.Process().Pid
	parent, ticks := map[int]int{}, map[int]int64{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis: state, ppid,
		// ..., utime and stime the 12th and 13th of them.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) < 13 {
			continue
		}
		parent[pid], _ = strconv.Atoi(f[1])
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		ticks[pid] = u + s
	}
	var total int64
	for pid, t := range ticks {
		for q := pid; q > 1; q = parent[q] {
			if q == root {
				total += t
				break
			}
		}
	}
	return time.Duration(total) * time.Second / 100 // USER_HZ
}
