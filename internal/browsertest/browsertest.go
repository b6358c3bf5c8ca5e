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

// Chromium finds the browser, or skips t where there is none; in CI (the
// CI environment variable set, as .ci/run sets it), where a skipped test
// would pass a run that tested nothing of the dashboard, it fails t.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const why = "no Chromium on this machine: .ci/run installs Debian's chromium package"
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
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
// stream read without a browser; it can be shut (On, Off) and opened
// again, so that a benchmark compares watched and unwatched work on one
// cluster, block by block.
type Page struct {
	t   testing.TB
	url string
	ctx context.Context // the browser's; nil for a listener

	updates atomic.Int64 // a listener's
	stop    func()       // shuts a listener's stream; nil while shut
}

// Listen reads the dashboard's event stream at base (its address without a
// page) for t, as a page does, without drawing anything: what a watching
// browser costs the scheduler, apart from the browser's own work.
func Listen(t testing.TB, ctx context.Context, base string) *Page {
	t.Helper()
	p := &Page{t: t, url: base + "/api/events", ctx: nil}
	p.listen(ctx)
	t.Cleanup(p.Off)
	return p
}

// listen opens the event stream and waits for its first update.
func (p *Page) listen(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(ctx, "GET", p.url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		p.t.Fatal(err)
	}
	done, first := make(chan struct{}), make(chan struct{})
	p.stop = func() {
		cancel()
		<-done
	}
	go func() {
		defer close(done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 64<<20)
		for n := 0; sc.Scan(); {
			if strings.HasPrefix(sc.Text(), "data: ") {
				var st json.RawMessage
				if json.Unmarshal(sc.Bytes()[len("data: "):], &st) == nil {
					p.updates.Add(1)
					if n++; n == 1 {
						close(first)
					}
				}
			}
		}
	}()
	select {
	case <-first:
	case <-done:
		p.t.Fatal("the event stream ended before its first update")
	}
}

// Watch opens url (a dashboard page) in a fresh browser for t and waits
// until its page has drawn updates from the event stream; the page
// stays open, receiving updates, until t ends or Off.
func Watch(t testing.TB, ctx context.Context, url string) *Page {
	t.Helper()
	p := &Page{t: t, url: url, ctx: Start(t, ctx)}
	// Ten updates in: the browser's own start (seconds of CPU on a small
	// machine) is over before anything is measured.
	p.open(10)
	return p
}

// open loads the page and waits until it has drawn n updates.
func (p *Page) open(n int) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Navigate(p.url)); err != nil {
		p.t.Fatal(err)
	}
	poll := fmt.Sprintf(`Number(document.body.dataset.updates || 0) >= %d`, n)
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[any](poll)); err != nil {
		p.t.Fatal(err)
	}
}

// Off shuts the page's event stream (the page stays, drawn and idle) or
// the listener's stream. (A blank page instead would have the browser
// swap its renderer process during the unwatched block.)
func (p *Page) Off() {
	p.t.Helper()
	if p.ctx != nil {
		if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[any](`source.close()`)); err != nil {
			p.t.Fatal(err)
		}
		return
	}
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
}

// On loads the page again (two updates drawn) or opens the stream (one
// update read).
func (p *Page) On(ctx context.Context) {
	p.t.Helper()
	if p.ctx != nil {
		p.open(2)
		return
	}
	if p.stop == nil {
		p.listen(ctx)
	}
}

// AB runs op b.N times in blocks of block, the page shut for one block and
// open for the next, timing only the blocks, and reports the throughput
// watched over the throughput unwatched ("watched/unwatched"): on one
// cluster, block by block, so that this machine's drift over minutes
// cannot fake it; with the page's updates a second and a browser's CPU
// in cores, watched and idle.
func AB(b *testing.B, ctx context.Context, p *Page, block int, op func()) {
	var took [2]time.Duration
	var ran [2]int
	var updates float64
	var cpu, cpuOff time.Duration
	b.ResetTimer() // the page's opening is not timed
	b.StopTimer()
	for i := 0; i < b.N; {
		watched := (i / block) % 2
		if watched == 1 {
			p.On(ctx)
		} else {
			p.Off()
		}
		u, c := p.Updates(), p.cpu()
		b.StartTimer()
		start := time.Now()
		for j := 0; j < block && i < b.N; j, i = j+1, i+1 {
			op()
			ran[watched]++
		}
		took[watched] += time.Since(start)
		b.StopTimer()
		if watched == 1 {
			updates += p.Updates() - u
			cpu += p.cpu() - c
		} else {
			cpuOff += p.cpu() - c
		}
	}
	if ran[0] > 0 && ran[1] > 0 {
		b.ReportMetric((float64(ran[1])/took[1].Seconds())/(float64(ran[0])/took[0].Seconds()), "watched/unwatched")
		b.ReportMetric(updates/took[1].Seconds(), "page-updates/s")
		if p.ctx != nil {
			b.ReportMetric(cpu.Seconds()/took[1].Seconds(), "browser-cores")
			b.ReportMetric(cpuOff.Seconds()/took[0].Seconds(), "browser-cores-idle")
		}
	}
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
