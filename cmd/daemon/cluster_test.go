package daemon_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/bench"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/internal/transport/grpcnet"
	"github.com/duskdata/dusk/scheduler"
	"github.com/duskdata/dusk/scheduler/server"
)

// Registered here for the client side; the dusktest binary registers the
// same names for its workers. "only-here" no worker binary has.
var (
	testInc  = dusk.Register("test-inc", func(_ context.Context, x int) (int, error) { return x + 1, nil })
	testExit = dusk.Register("test-exit", func(context.Context, int) (int, error) { return 0, nil })
	onlyHere = dusk.Register("only-here", func(_ context.Context, x int) (int, error) { return x, nil })
	testOpen = dusk.Register("test-open", func(context.Context, string) (int, error) { return 0, nil })
)

const dataRows = 1_000_000

var data struct {
	once sync.Once
	path string
	ref  map[string]groupRef
	ref3 map[string]groupRef // per id3: 10,000 groups of strings that pack
	err  error
}

type groupRef struct {
	sumV1, n int64
	sumV3    float64
}

// groupByData writes db-benchmark's groupby table of a million rows once,
// and its per-id1 sums straight from the generator: the reference.
func groupByData(t *testing.T) (string, map[string]groupRef) {
	t.Helper()
	data.once.Do(func() {
		dir, err := os.MkdirTemp("", "dusk-data-")
		if err != nil {
			data.err = err
			return
		}
		data.path = filepath.Join(dir, bench.GroupByFileName(dataRows, 100))
		f, err := os.Create(data.path)
		if err != nil {
			data.err = err
			return
		}
		if data.err = bench.WriteGroupByCSV(f, dataRows, 100, 1); data.err != nil {
			return
		}
		data.err = f.Close()
		data.ref, data.ref3 = map[string]groupRef{}, map[string]groupRef{}
		g := bench.NewGroupByGen(dataRows, 100, 1)
		for i := 0; i < dataRows; i++ {
			r := g.Row()
			addRow(data.ref, r.ID1, r)
			addRow(data.ref3, r.ID3, r)
		}
	})
	if data.err != nil {
		t.Fatal(data.err)
	}
	return data.path, data.ref
}

// addRow counts r in a reference, under key.
func addRow(ref map[string]groupRef, key string, r bench.GroupByRow) {
	x := ref[key]
	x.sumV1 += r.V1
	x.sumV3 += r.V3
	x.n++
	ref[key] = x
}

func connect(t testing.TB, ctx context.Context, addr string) context.Context {
	t.Helper()
	c, err := dusk.NewClient(ctx, dusk.Address(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return dusk.WithClient(ctx, c)
}

func groupByQuery(df *dataframe.Frame) *dataframe.Frame {
	return df.GroupBy("id1").Agg(dataframe.Sum("v1"), dataframe.Sum("v3"), dataframe.Size())
}

func checkGroupBy(t *testing.T, tab *dataframe.Table, ref map[string]groupRef) {
	t.Helper()
	checkGroupByKey(t, tab, "id1", ref)
}

// checkGroupByKey checks the sums and sizes grouped by key against ref.
func checkGroupByKey(t *testing.T, tab *dataframe.Table, key string, ref map[string]groupRef) {
	t.Helper()
	defer tab.Release()
	if tab.NumRows() != len(ref) {
		t.Fatalf("%d groups, want %d", tab.NumRows(), len(ref))
	}
	ids, ok := tab.Column(key).(*array.String)
	if !ok {
		t.Fatalf("key %s is %s, not strings", key, tab.Column(key).DataType())
	}
	v1 := tab.Column("sum(v1)").(*array.Int64)
	v3 := tab.Column("sum(v3)").(*array.Float64)
	n := tab.Column("size").(*array.Int64)
	for i := 0; i < tab.NumRows(); i++ {
		want := ref[ids.Value(i)]
		if v1.Value(i) != want.sumV1 || n.Value(i) != want.n || math.Abs(v3.Value(i)-want.sumV3) > 1e-9*math.Abs(want.sumV3) {
			t.Fatalf("%s: sum(v1)=%d sum(v3)=%v size=%d; want %d %v %d",
				ids.Value(i), v1.Value(i), v3.Value(i), n.Value(i), want.sumV1, want.sumV3, want.n)
		}
	}
}

// A scheduler and three worker processes run a groupby over a million rows;
// partials move between workers directly.
func TestGroupByAcrossProcesses(t *testing.T) {
	sched, _ := startCluster(t, bins.dusk, 3)
	path, ref := groupByData(t)
	ctx := connect(t, testCtx(t), sched.addr)
	df := dataframe.ReadCSV(path, dataframe.CSVOptions{BlockSize: 4 << 20})
	if df.NumPartitions() < 10 {
		t.Fatalf("%d partitions; the test wants many", df.NumPartitions())
	}
	tab, err := groupByQuery(df).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkGroupBy(t, tab, ref)
}

// A worker holding persisted partitions is killed with SIGKILL while the
// groupby runs: what it held is recomputed, and the answer is still right.
func TestSurvivesSIGKILL(t *testing.T) {
	sched, workers := startCluster(t, bins.dusk, 3)
	path, ref := groupByData(t)
	ctx := connect(t, testCtx(t), sched.addr)
	p, err := dataframe.ReadCSV(path, dataframe.CSVOptions{BlockSize: 4 << 20}).Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	done := make(chan struct{})
	var tab *dataframe.Table
	go func() {
		defer close(done)
		tab, err = groupByQuery(p).Compute(ctx)
	}()
	workers[1].cmd.Process.Kill()
	<-done
	if err != nil {
		t.Fatal(err)
	}
	checkGroupBy(t, tab, ref)
	if !strings.Contains(sched.stderr.String(), "worker lost") {
		t.Fatalf("the scheduler never noticed the killed worker:\n%s", sched.stderr)
	}
	// And again, now that the cluster has settled without it.
	if tab, err = groupByQuery(p).Compute(ctx); err != nil {
		t.Fatal(err)
	}
	checkGroupBy(t, tab, ref)
}

// A worker that freezes (SIGSTOP) keeps its connections open but stops
// answering: the membership cluster declares it dead, and the computation
// finishes without it within the test's deadline. (No nanny: the signal
// must reach the worker's own process.) The worker frozen holds part of
// the persisted frame, so that the computation needs it: one that held
// none (the other had taken every partition) let the query finish before
// anything was declared.
func TestFrozenWorkerDeclaredDead(t *testing.T) {
	sched, workers := startCluster(t, bins.dusk, 2, "--no-nanny")
	path, ref := groupByData(t)
	ctx := testCtx(t)
	c, err := dusk.NewClient(ctx, dusk.Address(sched.addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx = dusk.WithClient(ctx, c)
	p, err := dataframe.ReadCSV(path, dataframe.CSVOptions{BlockSize: 8 << 20}).Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	ws, err := c.Workers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	frozen := -1
	for _, w := range ws { // startCluster names worker i "wi"
		for i := range workers {
			if w.Name == fmt.Sprintf("w%d", i) && w.Held > 0 && frozen < 0 {
				frozen = i
			}
		}
	}
	if frozen < 0 {
		t.Fatalf("no worker holds a part of the persisted frame: %+v", ws)
	}
	workers[frozen].cmd.Process.Signal(syscall.SIGSTOP)
	tab, err := groupByQuery(p).Compute(ctx) // waits on the frozen worker until it is declared dead
	if err != nil {
		t.Fatal(err)
	}
	checkGroupBy(t, tab, ref)
	if !strings.Contains(sched.stderr.String(), "worker lost") {
		t.Fatalf("the scheduler never declared the frozen worker lost:\n%s", sched.stderr)
	}
}

// SIGTERM makes a worker hand the results only it holds to the others
// before it exits cleanly.
func TestSIGTERMHandsOffResults(t *testing.T) {
	sched, workers := startCluster(t, bins.dusk, 2)
	path, ref := groupByData(t)
	ctx := connect(t, testCtx(t), sched.addr)
	p, err := dataframe.ReadCSV(path, dataframe.CSVOptions{BlockSize: 8 << 20}).Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	workers[0].cmd.Process.Signal(syscall.SIGTERM)
	if err := waitExit(t, workers[0], 30*time.Second); err != nil {
		t.Fatalf("worker exited with %v:\n%s", err, workers[0].stderr)
	}
	if !strings.Contains(workers[0].stderr.String(), "retiring") || strings.Contains(workers[0].stderr.String(), "before every copy") {
		t.Fatalf("the worker did not retire cleanly:\n%s", workers[0].stderr)
	}
	tab, err := groupByQuery(p).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkGroupBy(t, tab, ref)
	if !strings.Contains(sched.stderr.String(), "worker retiring") {
		t.Fatalf("the scheduler saw no retirement:\n%s", sched.stderr)
	}
}

// A task that kills its worker every time fails after the third death with
// an error that says so; the cluster goes on serving.
func TestKilledWorkerLimit(t *testing.T) {
	sched, _ := startCluster(t, bins.dusktest, 4)
	ctx := connect(t, testCtx(t), sched.addr)
	f, err := testExit.Submit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Result(ctx)
	var te *dusk.TaskError
	if !errors.As(err, &te) || !errors.Is(err, dusk.ErrKilledWorker) || !strings.Contains(te.Message, "3 workers died") {
		t.Fatalf("err = %v; want the killed-worker error after 3 deaths", err)
	}
	g, err := testInc.Submit(ctx, 41)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := g.Result(ctx); err != nil || v != 42 {
		t.Fatalf("after the killer: %v, %v", v, err)
	}
}

// An operation's error from another process unwraps to a RemoteError with
// its type and text, and errors.Is tells its kind.
func TestRemoteTaskError(t *testing.T) {
	sched, _ := startCluster(t, bins.dusktest, 1)
	ctx := connect(t, testCtx(t), sched.addr)
	f, err := testOpen.Submit(ctx, filepath.Join(t.TempDir(), "missing.csv"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Result(ctx)
	var re *dusk.RemoteError
	if !errors.As(err, &re) || re.Type != "*fs.PathError" || !strings.HasPrefix(re.Message, "open input: open ") {
		t.Fatalf("err = %v; want a RemoteError from the *fs.PathError", err)
	}
	if !errors.Is(err, dusk.ErrTaskFailed) || errors.Is(err, dusk.ErrLost) {
		t.Fatalf("err = %v; want ErrTaskFailed and no other kind", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "dusk: test-open: open input: ") || !strings.Contains(msg, "(task "+string(f.Key())+" on worker 127.0.0.1:") {
		t.Fatalf("message %q: want the operation first, the key and worker last", msg)
	}
}

// A worker built without a function the graph needs fails the task with a
// message that names the function.
func TestMissingFunctionIsNamed(t *testing.T) {
	sched, _ := startCluster(t, bins.dusk, 1)
	ctx := connect(t, testCtx(t), sched.addr)
	f, err := onlyHere.Submit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Result(ctx); err == nil || !strings.Contains(err.Error(), `operation "only-here" is not registered`) {
		t.Fatalf("err = %v; want it to name the function", err)
	}
}

// A wrong scheduler address fails clearly: at once for a client, and for
// a worker once its --death-timeout (here under its older name) is over.
func TestWrongSchedulerAddress(t *testing.T) {
	// A connect timeout of an hour: a client that waited it out would hang.
	_, err := dusk.NewClient(context.Background(), dusk.Address("127.0.0.1:1"), dusk.ConnectTimeout(time.Hour))
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err = %v", err)
	}
	w := startNoAddr(t, bins.dusk, "worker", "--scheduler", "127.0.0.1:1", "--connect-timeout", "5s", "--local-directory", t.TempDir())
	if err := waitExit(t, w, 10*time.Second); exitCode(err) != 1 || !strings.Contains(w.stderr.String(), "refused") {
		t.Fatalf("worker exit %v:\n%s", err, w.stderr)
	}
}

// A worker started before its scheduler waits for it (Dask's
// --death-timeout) and joins once it serves; a job then runs.
func TestWorkerWaitsForScheduler(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	ctx := testCtx(t)
	w := startNoAddr(t, bins.dusktest, "worker", "--scheduler", addr, "--host", "127.0.0.1", "--nthreads", "1",
		"--local-directory", t.TempDir())
	w.stderr.waitFor(t, ctx, w, "waiting for the scheduler")
	sched := start(t, bins.dusktest, "scheduler", "--host", "127.0.0.1", "--port", port, "--dashboard-address", "none")
	workerRuns(t, ctx, dusk.Address(sched.addr))
}

// A scheduler killed and started again at the same address gets its
// workers back (they keep their processes, drop their results and join it
// again), and a new job then runs on them.
func TestSchedulerRestart(t *testing.T) {
	ctx := testCtx(t)
	schedArgs := []string{"scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "none"}
	sched := start(t, bins.dusktest, schedArgs...)
	_, port, _ := net.SplitHostPort(sched.addr)
	var workers []*proc
	for i := 0; i < 2; i++ {
		workers = append(workers, start(t, bins.dusktest, "worker", "--scheduler", sched.addr, "--host", "127.0.0.1",
			"--nthreads", "1", "--local-directory", t.TempDir(), "--death-timeout", "60s"))
	}
	workerRuns(t, ctx, dusk.Address(sched.addr))
	// Both workers joined, gossip included, before the scheduler dies: one
	// still joining would fail to start, not wait for it.
	first, err := dusk.NewClient(ctx, dusk.Address(sched.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, err := first.WaitForWorkers(ctx, 2); err != nil {
		t.Fatal(err)
	}
	// A worker joins the scheduler, then its gossip: it says it serves
	// once it has done both.
	for _, w := range workers {
		w.stderr.waitFor(t, ctx, w, "serving")
	}
	sched.cmd.Process.Kill()
	<-sched.exited
	// A computation asked of a client whose scheduler died fails saying so,
	// whether its submission or its wait is the first to find the stream
	// closed.
	fctx := dusk.WithClient(ctx, first)
	if futs, err := testInc.Map(fctx, []int{1}); err == nil {
		_, err = dusk.Gather(fctx, futs)
		if err == nil || !strings.Contains(err.Error(), "lost the connection to the scheduler") {
			t.Errorf("gathering with the scheduler dead: %v, want it to say the connection to the scheduler was lost", err)
		}
	} else if !strings.Contains(err.Error(), "lost the connection to the scheduler") {
		t.Errorf("submitting with the scheduler dead: %v, want it to say the connection to the scheduler was lost", err)
	}
	for _, w := range workers {
		w.stderr.waitFor(t, ctx, w, "waiting for the scheduler")
	}
	schedArgs[4] = port
	again := start(t, bins.dusktest, schedArgs...)
	c, err := dusk.NewClient(ctx, dusk.Address(again.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.WaitForWorkers(ctx, 2); err != nil {
		t.Fatal(err)
	}
	cctx := dusk.WithClient(ctx, c)
	args := make([]int, 50)
	for i := range args {
		args[i] = i
	}
	futs, err := testInc.Map(cctx, args)
	if err != nil {
		t.Fatal(err)
	}
	got, err := dusk.Gather(cctx, futs)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != i+1 {
			t.Fatalf("inc(%d) = %d", i, v)
		}
	}
	for _, w := range workers {
		select {
		case <-w.exited:
			t.Fatalf("a worker process exited:\n%s", w.stderr)
		default:
		}
	}
}

// workerRuns connects a client as opt says, waits for a worker to join,
// and has it run a task.
func workerRuns(t *testing.T, ctx context.Context, opt dusk.Option) {
	t.Helper()
	c, err := dusk.NewClient(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.WaitForWorkers(ctx, 1); err != nil {
		t.Fatal(err)
	}
	cctx := dusk.WithClient(ctx, c)
	if v, err := must(testInc.Submit(cctx, 41)).Result(cctx); err != nil || v != 42 {
		t.Fatalf("inc(41) = %v, %v", v, err)
	}
}

// A scheduler writes its address to --scheduler-file; a worker started
// before it waits for the file, and a client finds the scheduler by it
// (Dask's scheduler_file).
func TestSchedulerFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "scheduler.json")
	ctx := testCtx(t)
	startNoAddr(t, bins.dusktest, "worker", "--scheduler-file", file, "--host", "127.0.0.1", "--nthreads", "1",
		"--local-directory", t.TempDir())
	start(t, bins.dusktest, "scheduler", "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "none",
		"--scheduler-file", file)
	workerRuns(t, ctx, dusk.SchedulerFile(file))
	// Neither or both of --scheduler and --scheduler-file: a clear error.
	w := startNoAddr(t, bins.dusk, "worker", "--local-directory", t.TempDir())
	if err := waitExit(t, w, 10*time.Second); exitCode(err) != 1 || !strings.Contains(w.stderr.String(), "--scheduler-file") {
		t.Errorf("a worker told of no scheduler: exit %v\n%s", err, w.stderr)
	}
}

// Peers of another protocol version are refused with both versions named.
func TestVersionMismatch(t *testing.T) {
	net := grpcnet.New()
	s, err := server.StartScheduler(net, "127.0.0.1:0", server.Gossip{}, scheduler.Config{}, discard())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, err = transport.Connect(ctx, net, s.Addr(), &protocol.HelloClient{Version: "0.0.0-other", ID: "c"})
	if err == nil || !strings.Contains(err.Error(), "0.0.0-other") || !strings.Contains(err.Error(), protocol.Version) {
		t.Fatalf("err = %v; want both versions named", err)
	}
}

// allocArgs is dusktest's AllocArgs.
type allocArgs struct {
	MiB    int
	Marker string
}

var testAlloc = dusk.Register("test-alloc", func(context.Context, allocArgs) (int, error) { return 0, nil })

// A task that takes more memory than its worker's limit gets the worker
// killed and restarted by its nanny; run again, it completes when it stays
// within bounds, and fails with a clear error after the retry limit when it
// never does. The scheduler's /metrics count the kills and the restarts.
func TestNannyRestartsWorkerOverMemory(t *testing.T) {
	sched, workers := startCluster(t, bins.dusktest, 1, "--memory-limit", "256MiB")
	c, err := dusk.NewClient(testCtx(t), dusk.Address(sched.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := dusk.WithClient(testCtx(t), c)

	once, err := testAlloc.Submit(ctx, allocArgs{MiB: 400, Marker: filepath.Join(t.TempDir(), "allocated")})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := once.Result(ctx); err != nil || v != 0 {
		t.Fatalf("the retried task: %v, %v; want it to complete", v, err)
	}
	if !strings.Contains(workers[0].stderr.String(), "exceeded its memory budget") {
		t.Fatalf("the nanny did not say why it restarted the worker:\n%s", workers[0].stderr)
	}

	always, err := testAlloc.Submit(ctx, allocArgs{MiB: 400})
	if err != nil {
		t.Fatal(err)
	}
	_, err = always.Result(ctx)
	var te *dusk.TaskError
	if !errors.As(err, &te) || te.Kind != protocol.KilledWorker || !strings.Contains(te.Message, "out of memory") {
		t.Fatalf("err = %v; want the killed-worker error that suspects memory", err)
	}
	// The restarted worker serves on.
	if v, err := must(testInc.Submit(ctx, 1)).Result(ctx); err != nil || v != 2 {
		t.Fatalf("after the restarts: %v, %v", v, err)
	}
	// Each kill was for memory and was followed by a restart: one for the
	// first task, at least one more for the second.
	text, code := httpGet(t, strings.TrimSuffix(c.DashboardLink(), "/status")+"/metrics")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if code != http.StatusOK || err != nil {
		t.Fatalf("/metrics: %d %v", code, err)
	}
	events := map[string]float64{}
	for _, m := range fams["dusk_worker_events_total"].GetMetric() {
		events[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
	}
	if events["killed"] < 2 || events["restarted"] != events["killed"] {
		t.Errorf("events %v: want two kills or more, each restarted", events)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Shuffles between worker processes: a split-out groupby (partial results
// pushed peer to peer, dictionary pieces from other processes), a hash
// join of both sides, and a sort by sampled ranges.
func TestShufflesAcrossProcesses(t *testing.T) {
	sched, _ := startCluster(t, bins.dusk, 3)
	path, ref := groupByData(t)
	ctx := connect(t, testCtx(t), sched.addr)
	df := dataframe.ReadCSV(path, dataframe.CSVOptions{BlockSize: 4 << 20})

	tab, err := df.GroupBy("id1").SplitOut(4).Agg(dataframe.Sum("v1"), dataframe.Sum("v3"), dataframe.Size()).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkGroupBy(t, tab, ref)

	// Into 20 outputs, the partial states' 12-byte id3 keys, plain
	// strings, move packed (kernel.PackedStrings) between the processes.
	plain := dataframe.ReadCSV(path, dataframe.CSVOptions{BlockSize: 4 << 20, NoDictionary: true})
	tab, err = plain.GroupBy("id3").SplitOut(20).Agg(dataframe.Sum("v1"), dataframe.Sum("v3"), dataframe.Size()).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkGroupByKey(t, tab, "id3", data.ref3)

	sizes := df.GroupBy("id1").SplitOut(3).Agg(dataframe.Size().As("n"))
	joined := df.Merge(sizes, dataframe.MergeOptions{On: []string{"id1"}, BroadcastBytes: -1})
	if plan := joined.Explain(); !strings.Contains(plan, "hash shuffle") {
		t.Fatalf("want a shuffle join:\n%s", plan)
	}
	tab, err = joined.GroupBy("id1").Agg(dataframe.Max("n"), dataframe.Size()).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, n, size := tab.Column("id1").(*array.String), tab.Column("max(n)").(*array.Int64), tab.Column("size").(*array.Int64)
	if tab.NumRows() != len(ref) {
		t.Fatalf("join: %d groups, want %d", tab.NumRows(), len(ref))
	}
	for i := range tab.NumRows() {
		if want := ref[ids.Value(i)].n; n.Value(i) != want || size.Value(i) != want {
			t.Fatalf("join: %s has %d rows carrying n=%d; want %d", ids.Value(i), size.Value(i), n.Value(i), want)
		}
	}
	tab.Release()

	tab, err = df.SortValues([]string{"v3"}, false).Select("v3").Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Release()
	v3 := tab.Column("v3").(*array.Float64).Float64Values()
	if len(v3) != dataRows {
		t.Fatalf("sort: %d rows, want %d", len(v3), dataRows)
	}
	for i := 1; i < len(v3); i++ {
		if v3[i] > v3[i-1] {
			t.Fatalf("sort: row %d (%v) after %v in a descending sort", i, v3[i], v3[i-1])
		}
	}
}

// `dusk version`, built in a checkout, names the commit checked out.
func TestVersionNamesCommit(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	out, err := exec.Command(bins.dusk, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "commit " + strings.TrimSpace(string(head))
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), "protocol "+protocol.Version) {
		t.Errorf("dusk version:\n%s\nwant %q and the protocol", out, want)
	}
}

// Over gRPC a task's needs send it to the worker that offers them, every
// worker offers its memory limit without being told, and MaxWorkers keeps
// a computation on one worker.
func TestNeedsAcrossProcesses(t *testing.T) {
	sched := start(t, bins.dusktest, "scheduler", "--host", "127.0.0.1", "--port", "0")
	for _, w := range []struct{ name, res string }{{"plain", ""}, {"licensed", "licence=1"}} {
		start(t, bins.dusktest, "worker", "--scheduler", sched.addr, "--host", "127.0.0.1", "--nthreads", "1",
			"--name", w.name, "--local-directory", t.TempDir(), "--memory-limit", "2GiB", "--resources", w.res)
	}
	ctx := testCtx(t)
	c, err := dusk.NewClient(ctx, dusk.Address(sched.addr), dusk.MaxWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx = dusk.WithClient(ctx, c)
	ws, err := c.WaitForWorkers(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, w := range ws {
		names[string(w.ID)] = w.Name
		if w.Resources["memory"] != 2<<30 {
			t.Errorf("worker %s offers %v; want memory=2 GiB from its limit", w.Name, w.Resources)
		}
	}
	licence := dusk.Needs{Custom: map[string]float64{"licence": 1}, Memory: 1 << 20}
	futs, err := testInc.Map(ctx, []int{1, 2, 3, 4}, licence)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := dusk.Gather(ctx, futs); err != nil || got[3] != 5 {
		t.Fatalf("got %v, %v", got, err)
	}
	futs, err = testSleep.Map(ctx, []int{20, 21, 22, 23, 24, 25})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dusk.Gather(ctx, futs); err != nil {
		t.Fatal(err)
	}
	recs, err := c.TaskStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sleptOn := map[string]bool{}
	for _, r := range recs {
		switch r.Prefix {
		case "test-inc":
			if names[string(r.Worker)] != "licensed" {
				t.Errorf("%s ran on %s, which offers no licence", r.Key, names[string(r.Worker)])
			}
		case "test-sleep":
			sleptOn[names[string(r.Worker)]] = true
		}
	}
	if len(sleptOn) != 1 {
		t.Errorf("a computation limited to one worker ran on %v", sleptOn)
	}
}

type refPair struct{ A, B dusk.Ref[int] }

var addRefs = dusk.Register("test-add-refs", func(context.Context, refPair) (int, error) { return 0, nil })

// newClient connects one more client to the scheduler at addr.
func newClient(t *testing.T, ctx context.Context, addr string) (*dusk.Client, context.Context) {
	t.Helper()
	c, err := dusk.NewClient(ctx, dusk.Address(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, dusk.WithClient(ctx, c)
}

// Across processes: futures are arguments of tasks (their results go from
// worker to worker), scattered values are futures, a dataset published by
// one client is another's.
func TestFuturesAcrossProcesses(t *testing.T) {
	sched, _ := startCluster(t, bins.dusktest, 2)
	c1, ctx1 := newClient(t, testCtx(t), sched.addr)
	_, ctx2 := newClient(t, testCtx(t), sched.addr)

	x, err := testInc.Submit(ctx1, 1)
	if err != nil {
		t.Fatal(err)
	}
	y, err := testInc.SubmitFuture(ctx1, x)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := addRefs.Submit(ctx1, refPair{x.Ref(), y.Ref()})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := sum.Result(ctx1); err != nil || v != 2+3 {
		t.Fatalf("sum of refs = %v, %v; want 5", v, err)
	}
	scattered, err := dusk.Scatter(ctx1, []int{10, 20})
	if err != nil {
		t.Fatal(err)
	}
	incs, err := testInc.MapFutures(ctx1, scattered)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := dusk.Gather(ctx1, incs); err != nil || got[0] != 11 || got[1] != 21 {
		t.Fatalf("inc of scattered = %v, %v", got, err)
	}

	// A dataset published by c1 is c2's, after c1 let its frame go.
	df, err := dataframe.FromRecords([]struct{ V int64 }{{1}, {2}, {3}}, 2).Persist(ctx1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c1.Publish(ctx1, "vs", df); err != nil {
		t.Fatal(err)
	}
	df.Release()
	got, err := dataframe.FromDataset(ctx2, "vs")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := got.Len(ctx2); err != nil || n != 3 {
		t.Fatalf("the dataset has %d rows, %v; want 3", n, err)
	}

}

// A fire-and-forget task runs though its client is gone before it starts:
// it waits behind a slow task on the one worker thread, and the scheduler
// alone wants it when that thread frees.
func TestFireAndForgetAcrossProcesses(t *testing.T) {
	sched, _ := startCluster(t, bins.dusktest, 1)
	c1, ctx1 := newClient(t, testCtx(t), sched.addr)
	c2, ctx2 := newClient(t, testCtx(t), sched.addr)
	if _, err := testSleep.Submit(ctx1, 400); err != nil {
		t.Fatal(err)
	}
	effect, err := testSleep.Submit(ctx1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := dusk.FireAndForget(ctx1, effect); err != nil {
		t.Fatal(err)
	}
	c1.Close()
	for {
		recs, err := c2.TaskStream(ctx2)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(recs, func(r dusk.TaskRecord) bool { return r.Key == effect.Key() && r.Kind == "" }) {
			return // it ran, with nobody left wanting it
		}
	}
}

// The coordination primitives, shared by two clients over gRPC: a
// variable, a queue, a lock and an event.
func TestCoordinationAcrossClients(t *testing.T) {
	sched, _ := startCluster(t, bins.dusk, 1)
	c1, ctx := newClient(t, testCtx(t), sched.addr)
	c2, _ := newClient(t, testCtx(t), sched.addr)

	got := make(chan string, 1)
	go func() {
		v, err := dusk.NewVariable[string](c2, "model").Get(ctx) // waits for the set
		if err != nil {
			v = err.Error()
		}
		got <- v
	}()
	if err := dusk.NewVariable[string](c1, "model").Set(ctx, "v2"); err != nil {
		t.Fatal(err)
	}
	if v := <-got; v != "v2" {
		t.Fatalf("c2 got the variable as %q", v)
	}

	q1, q2 := dusk.NewQueue[int](c1, "work"), dusk.NewQueue[int](c2, "work")
	for i := 1; i <= 3; i++ {
		if err := q1.Put(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
	for want := 1; want <= 3; want++ {
		if v, err := q2.Get(ctx); err != nil || v != want {
			t.Fatalf("c2 took %v, %v; want %d", v, err, want)
		}
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err := q2.Get(short) // empty: it gives up when its context ends
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a get of an empty queue: %v; want the deadline", err)
	}

	l1, l2 := dusk.NewLock(c1, "file"), dusk.NewLock(c2, "file")
	if err := l1.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	acquired := make(chan error, 1)
	go func() { acquired <- l2.Acquire(ctx) }()
	if err := l2.Release(ctx); err == nil {
		t.Fatal("a lock released by one that does not hold it")
	}
	if err := l1.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-acquired; err != nil {
		t.Fatal(err)
	}

	e1, e2 := dusk.NewEvent(c1, "ready"), dusk.NewEvent(c2, "ready")
	waited := make(chan error, 1)
	go func() { waited <- e2.Wait(ctx) }()
	if set, err := e2.IsSet(ctx); err != nil || set {
		t.Fatalf("IsSet before Set: %v, %v", set, err)
	}
	if err := e1.Set(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	// The lock c2 holds goes when c2 does.
	c2.Close()
	if err := dusk.NewLock(c1, "file").Acquire(ctx); err != nil {
		t.Fatal(err)
	}
}
