//go:build linux

package hosts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk/bench"
	"github.com/duskdata/dusk/bench/tpch"
	"github.com/duskdata/dusk/internal/hosts"
)

// dusk is the binary the hosts run, built once for the tests.
var dusk string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dusk-hosts-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dusk = filepath.Join(dir, "dusk")
	if out, err := exec.Command("go", "build", "-o", dusk, "github.com/duskdata/dusk/cmd/dusk").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build dusk: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// schedPort is where the scheduler serves on h0.
const schedPort = "8786"

// cluster is a scheduler on the bed's first host and a worker on each
// other one.
type cluster struct {
	bed     *hosts.Bed
	addr    string // the scheduler's
	sched   *hosts.Proc
	workers []*hosts.Proc
}

// startCluster starts a scheduler on h0 and a one-thread worker on every
// other host, given workerArgs too, and waits until all have joined.
func startCluster(t testing.TB, ctx context.Context, bed *hosts.Bed, workerArgs ...string) *cluster {
	t.Helper()
	return startClusterWith(t, ctx, bed, nil, workerArgs...)
}

// startClusterWith is startCluster with schedArgs given to the scheduler.
func startClusterWith(t testing.TB, ctx context.Context, bed *hosts.Bed, schedArgs []string, workerArgs ...string) *cluster {
	t.Helper()
	h0 := bed.Hosts[0]
	c := &cluster{bed: bed, addr: h0.IP.String() + ":" + schedPort}
	c.sched = h0.Start(dusk, append([]string{"scheduler", "--host", h0.IP.String(), "--port", schedPort}, schedArgs...)...)
	if _, err := c.sched.WaitFor(ctx, "dusk scheduler at"); err != nil {
		t.Fatal(err)
	}
	for i, h := range bed.Hosts[1:] {
		args := append([]string{"worker", "--scheduler", c.addr, "--nthreads", "1", "--memory-limit", "2GiB",
			"--name", h.Name, "--local-directory", filepath.Join(t.TempDir(), h.Name), "--dashboard-address", "none"}, workerArgs...)
		c.workers = append(c.workers, h.Start(dusk, args...))
		if _, err := c.sched.WaitForN(ctx, "worker joined", i+1); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// dump ends the client p and every process of the cluster with SIGQUIT,
// and keeps what they wrote, goroutines' stacks and all, in a file that
// outlives the test: where a hung query hung.
func (c *cluster) dump(t testing.TB, p *hosts.Proc) {
	t.Helper()
	f, err := os.CreateTemp("", "dusk-hosts-"+strings.ReplaceAll(t.Name(), "/", "-")+"-*.txt")
	if err != nil {
		t.Log(err)
		return
	}
	defer f.Close()
	// The scheduler's view first: its tasks by kind and state, its workers.
	for _, page := range []string{"metrics", "api/status"} {
		if resp, err := c.bed.Hosts[0].HTTP().Get("http://" + c.bed.Hosts[0].IP.String() + ":8787/" + page); err == nil {
			fmt.Fprintf(f, "==== /%s\n", page)
			io.Copy(f, resp.Body)
			resp.Body.Close()
		}
	}
	for _, q := range append([]*hosts.Proc{p, c.sched}, c.workers...) {
		q.Quit()
		fmt.Fprintf(f, "==== %s\n%s\n", q.Host.Name, q.Output())
	}
	t.Logf("the processes' stacks are in %s", f.Name())
}

// needTPCH skips t in -short mode, as it makes TPC-H's SF1 tables, and
// where the bed cannot be made; it returns the tables' folder.
func needTPCH(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("generates TPC-H SF1")
	}
	hosts.Require(t, "ip", "tc")
	return sf1(t)
}

// sf1 is a folder of TPC-H's SF1 tables, made the first time in the
// user's cache (where bench/tpch's tests keep them too).
func sf1(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tpch-sf1")
	if c, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(c, "dusk", "tpch-sf1")
	}
	if err := tpch.Generate(dir, 1, testLog{t}); err != nil {
		t.Fatal(err)
	}
	return dir
}

type testLog struct{ t testing.TB }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// runTPCH runs `dusk bench tpch` on the client host against the cluster
// and checks every answer against TPC-H's.
func runTPCH(t testing.TB, ctx context.Context, client *hosts.Host, c *cluster, data string, queries ...string) string {
	t.Helper()
	answers := t.TempDir()
	args := []string{"bench", "tpch", "--scheduler", c.addr, "--data", data, "--answers", answers}
	if len(queries) > 0 {
		args = append(args, "--queries", strings.Join(queries, ","))
	}
	p := client.Start(dusk, args...)
	if err := p.Wait(ctx); err != nil {
		c.dump(t, p)
		t.Fatalf("dusk bench tpch: %v\n%s\nscheduler:\n%s", err, p.Output(), c.sched.Output())
	}
	t.Logf("dusk bench tpch on %d hosts:\n%s", len(c.bed.Hosts), p.Output())
	checkAnswers(t, answers, queries)
	return p.Output()
}

// checkAnswers compares the answers in dir with TPC-H's.
func checkAnswers(t testing.TB, dir string, ids []string) {
	t.Helper()
	for i := range tpch.Queries {
		q := &tpch.Queries[i]
		if len(ids) > 0 && !contains(ids, q.ID) {
			continue
		}
		_, got, err := tpch.ReadAnswer(filepath.Join(dir, tpch.AnswerFile(q.ID)))
		if err != nil {
			t.Errorf("%s: %v", q.ID, err)
			continue
		}
		_, want, err := tpch.ReadAnswer(filepath.Join("..", "..", "bench", "tpch", "testdata", "sf1-answers", tpch.AnswerFile(q.ID)))
		if err != nil {
			t.Fatal(err)
		}
		if err := tpch.CompareAnswer(q, got, want); err != nil {
			t.Errorf("%s: %v", q.ID, err)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestTPCH runs TPC-H's 22 queries at SF1 from Parquet on four hosts of
// 1 Gbit/s (a scheduler and the client on one, a one-thread worker on each
// of the others), with results compressed between hosts (LZ4, the
// default) and not, and checks every answer.
func TestTPCH(t *testing.T) {
	data := needTPCH(t)
	for _, comp := range []string{"auto", "none"} {
		t.Run("compression="+comp, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			bed := hosts.New(t, 4, hosts.Link{Rate: "1gbit"})
			c := startCluster(t, ctx, bed, "--compression", comp)
			runTPCH(t, ctx, bed.Hosts[0], c, data)
		})
	}
}

// startQuery starts `dusk bench tpch` of the queries on the client host,
// writing its answers to a folder of its own, and waits until the
// scheduler has its connection: a fault made then lands in the query.
func startQuery(t *testing.T, ctx context.Context, client *hosts.Host, c *cluster, data string, queries ...string) (p *hosts.Proc, answers string) {
	t.Helper()
	answers = t.TempDir()
	seen := strings.Count(c.sched.Output(), "client connected")
	p = client.Start(dusk, "bench", "tpch", "--scheduler", c.addr, "--data", data, "--answers", answers, "--queries", strings.Join(queries, ","))
	if _, err := c.sched.WaitForN(ctx, "client connected", seen+1); err != nil {
		t.Fatal(err)
	}
	return p, answers
}

// finish waits for a query started by startQuery and checks its answers.
func finish(t *testing.T, ctx context.Context, c *cluster, p *hosts.Proc, answers string, queries ...string) {
	t.Helper()
	if err := p.Wait(ctx); err != nil {
		c.dump(t, p)
		t.Fatalf("dusk bench tpch: %v\n%s\nscheduler:\n%s", err, p.Output(), c.sched.Output())
	}
	t.Logf("dusk bench tpch through the fault:\n%s", p.Output())
	checkAnswers(t, answers, queries)
}

// faultQueries are the queries each fault lands in: q18's joins and
// groupings shuffle, q9 joins six tables.
var faultQueries = []string{"q18", "q9"}

// TestFaults makes one fault at a time on four hosts while TPC-H queries
// run, and checks that each query ends, with TPC-H's answers, and that
// the cluster answers again once the fault is over.
func TestFaults(t *testing.T) {
	data := needTPCH(t)
	cases := []struct {
		name       string
		workerArgs []string
		lost       bool     // a worker is lost, and joins again once healed
		queries    []string // those the fault lands in, if not faultQueries
		// fault makes the fault on c once the queries run; heal, run when
		// they have ended, ends it.
		fault func(t *testing.T, ctx context.Context, c *cluster) (heal func())
	}{
		{"worker-killed", nil, true, nil, func(t *testing.T, ctx context.Context, c *cluster) func() {
			c.workers[1].Kill()
			return c.workers[1].Restart
		}},
		{"link-down", nil, true, nil, func(t *testing.T, ctx context.Context, c *cluster) func() {
			// The query ends while the link is still down: the worker
			// cut off is declared lost, and what it held is recomputed.
			h := c.bed.Hosts[2]
			h.Down()
			return h.Up
		}},
		// One in five packets the host sends lost, as netem's 20% loss on
		// its interface: TCP retransmits, gossip probes fail now and then,
		// and nothing may be wrong. Such a link moves a few tens of KB/s
		// (retransmission timeouts of 0.2 s and more, doubling), so the
		// queries are those that move little.
		{"lossy-link", nil, false, []string{"q1", "q6", "q14"}, func(t *testing.T, ctx context.Context, c *cluster) func() {
			h := c.bed.Hosts[2]
			h.Lose(20)
			return func() { h.Lose(0) }
		}},
		{"unplugged-past-death-timeout", []string{"--death-timeout", "5s", "--port", "7001"}, true, nil, func(t *testing.T, ctx context.Context, c *cluster) func() {
			// The worker unplugged gives up on the scheduler while it has
			// no route to it, and its nanny starts it again: it must come
			// back with its own address, not a loopback one. Its port is
			// fixed, so it comes back under the same address: the
			// scheduler must take it as a new worker, holding nothing.
			h := c.bed.Hosts[2]
			h.Unplug()
			w := c.workers[1]
			if _, err := w.WaitFor(ctx, "restarting the worker"); err != nil {
				t.Fatal(err)
			}
			// The new process looks for its address while still unplugged.
			if _, err := w.WaitFor(ctx, "waiting for a route to the scheduler"); err != nil {
				t.Fatal(err)
			}
			return h.Plug
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			bed := hosts.New(t, 4, hosts.Link{Rate: "1gbit"})
			c := startCluster(t, ctx, bed, tc.workerArgs...)
			joined := strings.Count(c.sched.Output(), "worker joined")
			queries := faultQueries
			if tc.queries != nil {
				queries = tc.queries
			}
			p, answers := startQuery(t, ctx, bed.Hosts[0], c, data, queries...)
			heal := tc.fault(t, ctx, c)
			finish(t, ctx, c, p, answers, queries...)
			heal()
			// Once healed, a worker lost is back (a new one, as far as the
			// scheduler knows) and the cluster answers.
			if tc.lost {
				if _, err := c.sched.WaitForN(ctx, "worker joined", joined+1); err != nil {
					t.Fatal(err)
				}
			}
			runTPCH(t, ctx, bed.Hosts[0], c, data, faultQueries...)
			t.Logf("scheduler:\n%s", c.sched.Output())
		})
	}
}

// TestSchedulerKilled kills the scheduler while a query runs: the client's
// computation fails with a clear error, the workers keep their processes,
// and when a scheduler comes back at the same address they join it and the
// cluster answers again.
func TestSchedulerKilled(t *testing.T) {
	data := needTPCH(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bed := hosts.New(t, 4, hosts.Link{Rate: "1gbit"})
	c := startCluster(t, ctx, bed)
	p, _ := startQuery(t, ctx, bed.Hosts[0], c, data, faultQueries...)
	c.sched.Kill()
	if err := p.Wait(ctx); err == nil {
		t.Fatalf("the query went on without its scheduler:\n%s", p.Output())
	}
	out := p.Output()
	if !strings.Contains(out, "scheduler") {
		t.Errorf("the client's error does not say the scheduler went away:\n%s", out)
	}
	t.Logf("the client, its scheduler killed:\n%s", out)
	for _, w := range c.workers {
		select {
		case <-w.Exited():
			t.Fatalf("a worker exited with its scheduler:\n%s", w.Output())
		default:
		}
	}
	c.sched.Restart()
	for _, w := range c.workers {
		if _, err := w.WaitForN(ctx, "dusk worker at", 2); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.sched.WaitForN(ctx, "worker joined", len(c.workers)); err != nil {
		t.Fatal(err)
	}
	runTPCH(t, ctx, bed.Hosts[0], c, data, faultQueries...)
}

// TestAddresses: on hosts with no default route, a scheduler given no
// --host finds its outward address (not a loopback one); a worker given
// --contact-address and --gossip-port is known by them; a worker that
// would advertise a loopback address to a scheduler on another host is
// refused, saying why.
func TestAddresses(t *testing.T) {
	hosts.Require(t, "ip", "tc")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bed := hosts.New(t, 3, hosts.Link{})
	h0, h1, h2 := bed.Hosts[0], bed.Hosts[1], bed.Hosts[2]
	sched := h0.Start(dusk, "scheduler", "--port", schedPort)
	line, err := sched.WaitFor(ctx, "dusk scheduler at")
	if err != nil {
		t.Fatal(err)
	}
	addr := h0.IP.String() + ":" + schedPort
	if !strings.HasSuffix(line, " "+addr) {
		t.Fatalf("a scheduler with no --host says %q; want it at %s", line, addr)
	}
	if line, err = sched.WaitFor(ctx, "dusk dashboard at"); err != nil || !strings.Contains(line, h0.IP.String()) {
		t.Errorf("the dashboard: %q, %v", line, err)
	}

	contact := h1.IP.String() + ":7001"
	w := h1.Start(dusk, "worker", "--scheduler", addr, "--nthreads", "1", "--port", "7001", "--contact-address", contact,
		"--gossip-port", "7946", "--local-directory", filepath.Join(t.TempDir(), "w"))
	if _, err := sched.WaitFor(ctx, `"worker joined" worker=`+contact); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WaitFor(ctx, "dusk worker at "+contact); err != nil {
		t.Fatal(err)
	}

	lo := h2.Start(dusk, "worker", "--scheduler", addr, "--host", "127.0.0.1", "--no-nanny", "--death-timeout", "5s",
		"--local-directory", filepath.Join(t.TempDir(), "lo"))
	if err := lo.Wait(ctx); err == nil || !strings.Contains(lo.Output(), "loopback") {
		t.Fatalf("a worker advertising 127.0.0.1 to a scheduler at %s: %v\n%s", addr, err, lo.Output())
	}
	if _, err := sched.WaitFor(ctx, "refused a peer"); err != nil {
		t.Fatal(err)
	}
	t.Logf("refused:\n%s", lo.Output())
}

// TestWireCounters runs TPC-H on four hosts and compares each worker's
// wire counters (its /metrics, read on its own host) with its network
// interface's: the interface adds TCP/IP's headers and the gossip, and
// nothing else may differ.
func TestWireCounters(t *testing.T) {
	data := needTPCH(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bed := hosts.New(t, 4, hosts.Link{Rate: "1gbit"})
	c := startCluster(t, ctx, bed, "--dashboard-address", "")
	var metrics []string
	for _, w := range c.workers {
		line, err := w.WaitFor(ctx, "dusk worker metrics at ")
		if err != nil {
			t.Fatal(err)
		}
		metrics = append(metrics, line[strings.Index(line, "http://"):])
	}
	runTPCH(t, ctx, bed.Hosts[0], c, data)
	for i, w := range c.workers {
		h := w.Host
		iface := h.Counters()
		resp, err := h.HTTP().Get(metrics[i])
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		sent, received := wireBytes(t, string(body))
		t.Logf("%s: wire sent %d received %d; interface sent %d received %d (%.3f, %.3f)", h.Name,
			sent, received, iface.Sent, iface.Received, float64(sent)/float64(iface.Sent), float64(received)/float64(iface.Received))
		for _, pair := range [][2]int64{{sent, iface.Sent}, {received, iface.Received}} {
			if ratio := float64(pair[0]) / float64(pair[1]); ratio < 0.9 || ratio > 1 {
				t.Errorf("%s: the worker counted %d bytes where its interface counted %d (%.3f)", h.Name, pair[0], pair[1], ratio)
			}
		}
	}
}

// wireBytes reads dusk_worker_wire_bytes_total from a /metrics page.
func wireBytes(t *testing.T, page string) (sent, received int64) {
	t.Helper()
	found := 0
	for line := range strings.Lines(page) {
		if !strings.HasPrefix(line, "dusk_worker_wire_bytes_total{") {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if strings.Contains(line, `direction="sent"`) {
			sent = int64(v)
		} else {
			received = int64(v)
		}
		found++
	}
	if found != 2 {
		t.Fatalf("no wire counters on the page:\n%s", page)
	}
	return sent, received
}

// BenchmarkTPCH times TPC-H SF1's 22 queries (each run twice) on four
// hosts, a scheduler and three one-thread workers, at 1 Gbit/s and
// 100 Mbit/s, with LZ4 between hosts and without, beside the local
// cluster of three one-thread workers in this process's namespace. It
// reports the seconds of each run of the suite and, per link, the floor
// its busiest interface sets (its bytes at the link's rate) and the time
// over that floor.
func BenchmarkTPCH(b *testing.B) {
	data := needTPCH(b)
	b.Run("local", func(b *testing.B) {
		for range b.N {
			cmd := exec.Command(dusk, "bench", "tpch", "--workers", "3", "--data", data)
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
			reportTotals(b, string(out))
		}
	})
	for _, link := range []struct {
		rate string
		bits float64
	}{{"1gbit", 1e9}, {"100mbit", 1e8}} {
		for _, comp := range []string{"auto", "none"} {
			b.Run(link.rate+"/compression="+comp, func(b *testing.B) {
				for range b.N {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
					bed := hosts.New(b, 4, hosts.Link{Rate: link.rate})
					c := startCluster(b, ctx, bed, "--compression", comp)
					var before []hosts.Counters
					for _, h := range bed.Hosts {
						before = append(before, h.Counters())
					}
					total := reportTotals(b, runTPCH(b, ctx, bed.Hosts[0], c, data))
					var busiest int64
					for i, h := range bed.Hosts {
						now := h.Counters()
						busiest = max(busiest, now.Sent-before[i].Sent, now.Received-before[i].Received)
					}
					floor := float64(busiest) * 8 / link.bits
					b.ReportMetric(float64(busiest)/1e6, "MB-busiest-link")
					b.ReportMetric(floor, "s-floor")
					b.ReportMetric(total/floor, "x-floor")
					cancel()
				}
			})
		}
	}
}

// reportTotals reports the suite's total seconds of each run, from
// `dusk bench tpch`'s table, and returns their sum.
func reportTotals(b *testing.B, out string) float64 {
	var sum float64
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "total" {
			secs, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(secs, "s-run"+f[1])
			sum += secs
		}
	}
	if sum == 0 {
		b.Fatalf("no totals in:\n%s", out)
	}
	return sum
}

// TestJoin runs db-benchmark's five join questions at a million rows on
// four hosts (`dusk bench join`, LZ4 between hosts: the big join shuffles
// both sides), and checks every answer's checksums against the reference
// join's in this process.
func TestJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("joins a million rows on four hosts")
	}
	hosts.Require(t, "ip", "tc")
	const rows = 1_000_000
	data := t.TempDir()
	if out, err := exec.Command(dusk, "bench", "gen", "--rows", "1e6", "--data", data).CombinedOutput(); err != nil {
		t.Fatalf("dusk bench gen: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bed := hosts.New(t, 4, hosts.Link{Rate: "1gbit"})
	c := startCluster(t, ctx, bed)
	results := filepath.Join(t.TempDir(), "join.json")
	p := bed.Hosts[0].Start(dusk, "bench", "join", "--rows", "1e6", "--data", data, "--scheduler", c.addr, "--json", results)
	if err := p.Wait(ctx); err != nil {
		c.dump(t, p)
		t.Fatalf("dusk bench join: %v\n%s", err, p.Output())
	}
	t.Logf("dusk bench join on 4 hosts:\n%s", p.Output())
	tables := bench.GenJoin(rows, 1)
	want := map[string][]float64{}
	for _, q := range bench.JoinQuestions {
		want[q.ID] = q.Ref(tables).Checksum()
	}
	f, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for line := range strings.Lines(string(f)) {
		var r bench.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		w, ok := want[r.Question]
		if !ok {
			continue // the load
		}
		checked++
		if !sameSums(r.Checksum, w) {
			t.Errorf("%s run %d: checksums %v, want %v", r.Question, r.Run, r.Checksum, w)
		}
	}
	if checked != 2*len(bench.JoinQuestions) {
		t.Errorf("%d answers checked, want %d", checked, 2*len(bench.JoinQuestions))
	}
}

// TestSort runs `dusk bench shuffle` at a million rows on four hosts, with
// results compressed between hosts and not: a hash shuffle of the groupby
// table on id6, then a sort on v3 (a range shuffle, its order checked
// across partitions by the suite), each twice; every answer's sums are
// checked against the table's, summed here.
func TestSort(t *testing.T) {
	if testing.Short() {
		t.Skip("shuffles a million rows on four hosts")
	}
	hosts.Require(t, "ip", "tc")
	const rows = 1_000_000
	want := groupBySums(rows)
	data := t.TempDir()
	for _, comp := range []string{"auto", "none"} {
		t.Run("compression="+comp, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			bed := hosts.New(t, 4, hosts.Link{Rate: "1gbit"})
			c := startCluster(t, ctx, bed, "--compression", comp)
			results := filepath.Join(t.TempDir(), "shuffle.json")
			p := bed.Hosts[0].Start(dusk, "bench", "shuffle", "--rows", "1e6", "--partitions", "12", "--data", data,
				"--scheduler", c.addr, "--json", results)
			if err := p.Wait(ctx); err != nil {
				c.dump(t, p)
				t.Fatalf("dusk bench shuffle: %v\n%s", err, p.Output())
			}
			t.Logf("dusk bench shuffle on 4 hosts:\n%s", p.Output())
			checkSums(t, results, rows, want)
		})
	}
}

// TestShuffleLoss kills a worker while a shuffle of a million rows moves
// over links of 100 Mbit/s, once the first transfer has delivered its
// pieces: the scheduler gives only that worker's outputs to the others
// (its log says how many of how many), and the answers are right.
func TestShuffleLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("shuffles a million rows on four hosts")
	}
	hosts.Require(t, "ip", "tc")
	const rows = 1_000_000
	want := groupBySums(rows)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bed := hosts.New(t, 4, hosts.Link{Rate: "100mbit"})
	// The protocol trace says when a transfer has finished.
	c := startClusterWith(t, ctx, bed, []string{"--log-level", "debug"})
	results := filepath.Join(t.TempDir(), "shuffle.json")
	p := bed.Hosts[0].Start(dusk, "bench", "shuffle", "--rows", "1e6", "--partitions", "12", "--data", t.TempDir(),
		"--scheduler", c.addr, "--json", results)
	if _, err := c.sched.WaitFor(ctx, "TaskFinished shuffle-transfer"); err != nil {
		t.Fatal(err)
	}
	c.workers[1].Kill()
	if err := p.Wait(ctx); err != nil {
		c.dump(t, p)
		t.Fatalf("dusk bench shuffle: %v\n%s", err, p.Output())
	}
	t.Logf("dusk bench shuffle, a worker killed:\n%s", p.Output())
	moved := regexp.MustCompile(`shuffle outputs assembled anew.* moved=(\d+) outputs=(\d+)`).FindStringSubmatch(c.sched.Output())
	if moved == nil {
		t.Fatalf("the scheduler moved no shuffle's outputs: the worker was not lost mid-shuffle\n%s", c.sched.Output())
	}
	if moved[1] == "0" || moved[1] == moved[2] {
		t.Errorf("%s of %s outputs assembled anew, want those of the worker lost", moved[1], moved[2])
	}
	checkSums(t, results, rows, want)
}

// groupBySums is what `dusk bench shuffle`'s answers must sum to: the
// groupby table's v1, v2 and v3, and for the sort v3, v1 and v2.
func groupBySums(rows int) map[string][]float64 {
	table := bench.NewGroupByTable(rows, 100, 1)
	var v1, v2, v3 float64
	for i := range rows {
		v1, v2, v3 = v1+float64(table.V1[i]), v2+float64(table.V2[i]), v3+table.V3[i]
	}
	return map[string][]float64{"shuffle": {v1, v2, v3}, "sort": {v3, v1, v2}}
}

// checkSums checks the shuffle suite's four answers in results.
func checkSums(t *testing.T, results string, rows int, want map[string][]float64) {
	t.Helper()
	rs, err := bench.ReadResults(results)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range rs {
		w, ok := want[r.Question]
		if !ok {
			continue
		}
		checked++
		if r.Rows != int64(rows) || !sameSums(r.Checksum, w) {
			t.Errorf("%s run %d: %d rows, sums %v; want %d rows, sums %v", r.Question, r.Run, r.Rows, r.Checksum, rows, w)
		}
	}
	if checked != 4 {
		t.Errorf("%d answers checked, want 4", checked)
	}
}

// sameSums reports whether checksums agree up to rounding.
func sameSums(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9*math.Max(1, math.Abs(want[i])) {
			return false
		}
	}
	return true
}
