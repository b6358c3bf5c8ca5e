package process

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	gonet "net"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/dashboard"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/internal/security"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/worker"
	"github.com/duskdata/dusk/worker/store"
)

// WorkerConfig describes a worker to start.
type WorkerConfig struct {
	// Addr is where the worker serves its data ("host:port"); "" lets the
	// network choose. Its listening address is the worker's ID.
	Addr string
	// Advertise, if set, is the host (or host and port) peers dial
	// instead of the listening one (a worker listening on every
	// interface, or behind NAT).
	Advertise string
	// Name is for people: logs and listings.
	Name string
	// NThreads is how many tasks run at once. Default 1.
	NThreads int
	// Resources the worker offers beyond its threads, e.g. GPU=1.
	Resources graph.Resources
	// MemoryLimit is the memory the worker may use, in bytes; 0: no limit
	// (nothing spills, the worker never pauses).
	MemoryLimit int64
	// Fractions of MemoryLimit at which it spills and pauses; zero fields
	// take Dask's defaults.
	Fractions worker.Fractions
	// LocalDirectory holds the worker's spill directory; default the
	// system's temporary directory.
	LocalDirectory string
	// SpillCompression compresses spilled results; default S2.
	SpillCompression store.Compression
	// ProcessMemory reads the worker's process memory given its managed
	// memory; default the resident set of this process. A cluster of
	// workers in one process gives each its results plus a share of the rest.
	ProcessMemory func(managed int64) int64
	// ProcessCPU reads the CPU time the worker used; default this
	// process's. Workers sharing a process give each a share.
	ProcessCPU func() time.Duration
	// Logs, if set, are lines the worker logged, sent on to the scheduler
	// with its reports (a worker process's; in-process workers log
	// through the scheduler's own logger).
	Logs *dashboard.Logs
	// Dashboard is where the worker serves its /metrics, if it does.
	Dashboard string
	// Restarted is why its nanny started it again, if it did.
	Restarted string
}

// Worker drives a worker core: it runs tasks on NThreads goroutines, fetches
// inputs from peers, serves its results to them, and talks to the scheduler.
// Whichever goroutine has news (a message, a finished task, a fetch) feeds
// the core under a lock and carries out its decisions, so a thread that
// finishes a task picks up the next without a hand-off to another goroutine.
type Worker struct {
	id     protocol.WorkerID
	net    transport.Network
	ln     transport.Listener
	sched  transport.Stream
	store  *store.Store
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	exec   chan job
	// merges are the shuffle merges the core asked for, which the worker's
	// threads run before their next task (see runTasks).
	merges chan *worker.MergeJob
	flushc chan struct{}
	done   chan struct{}
	once   sync.Once
	// runners are the goroutines that run tasks: Close waits for them, so
	// that no task of a closed worker still writes a file or reads a spill.
	runners sync.WaitGroup

	retired     chan struct{} // closed when the scheduler lets a retiring worker go
	retiredOnce sync.Once
	gossip      string
	gossipKey   []byte

	conns *transport.Conns

	mu      sync.Mutex
	state   *worker.State
	pending []protocol.Msg // to the scheduler, not yet sent

	mem  memoryMonitor
	act  activity
	prof profileState

	logs     *dashboard.Logs
	cpuShare func() time.Duration
}

// StartWorker starts a worker on net and joins the scheduler at schedAddr.
func StartWorker(ctx context.Context, net transport.Network, schedAddr string, cfg WorkerConfig, log *slog.Logger) (*Worker, error) {
	if cfg.NThreads <= 0 {
		cfg.NThreads = 1
	}
	wctx, cancel := context.WithCancel(context.Background())
	w := &Worker{
		net: net, ctx: wctx, cancel: cancel,
		exec:    make(chan job, 4*cfg.NThreads+16),
		merges:  make(chan *worker.MergeJob, mergesQueued),
		flushc:  make(chan struct{}, 1),
		done:    make(chan struct{}),
		retired: make(chan struct{}),
		conns:   transport.NewConns(net),
		logs:    cfg.Logs, cpuShare: cfg.ProcessCPU,
	}
	ln, err := net.Listen(cfg.Addr, w)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("start worker: %w", err)
	}
	w.ln = ln
	w.id = protocol.WorkerID(ln.Addr())
	if _, _, err := gonet.SplitHostPort(cfg.Advertise); err == nil {
		w.id = protocol.WorkerID(cfg.Advertise) // a host and port of its own (NAT)
	} else if _, port, err := gonet.SplitHostPort(ln.Addr()); err == nil && cfg.Advertise != "" {
		w.id = protocol.WorkerID(gonet.JoinHostPort(cfg.Advertise, port))
	}
	w.log = log.With("worker", w.id)
	w.startStore(cfg)
	// Every worker offers its threads as "cpu" (the scheduler counts them) and
	// its memory limit as "memory", unless told otherwise.
	res := graph.Resources{}
	for n, v := range cfg.Resources {
		res[n] = v
	}
	if _, ok := res["memory"]; !ok && cfg.MemoryLimit > 0 {
		res["memory"] = float64(cfg.MemoryLimit)
	}
	hello := &protocol.HelloWorker{Version: protocol.Version, ID: w.id, Name: cfg.Name, NThreads: cfg.NThreads, Resources: res,
		Dashboard: cfg.Dashboard, Restarted: cfg.Restarted, Ops: registry.Names()}
	w.state = worker.New(worker.Config{ID: w.id, NThreads: cfg.NThreads, Resources: res,
		MemoryLimit: cfg.MemoryLimit, Fractions: cfg.Fractions})
	var welcome *protocol.Welcome
	if w.sched, welcome, err = connectPatiently(ctx, net, schedAddr, hello, w.log); err != nil {
		ln.Close()
		cancel()
		w.removeSpillDir()
		return nil, fmt.Errorf("start worker: %w", err)
	}
	w.gossip, w.gossipKey = welcome.Gossip, welcome.GossipKey
	w.runners.Add(cfg.NThreads)
	for i := 0; i < cfg.NThreads; i++ {
		go w.runTasks(i)
	}
	go w.readScheduler()
	go w.flushToScheduler()
	go w.monitorMemory()
	return w, nil
}

// connectPatiently connects as Connect does, trying again with backoff
// while the scheduler cannot be reached (not yet started, restarting)
// until ctx ends, as Dask's workers wait for theirs; a refusal by the
// scheduler itself (another version, a TLS handshake) is not tried again.
func connectPatiently(ctx context.Context, net transport.Network, addr string, hello protocol.Msg, log *slog.Logger) (transport.Stream, *protocol.Welcome, error) {
	wait := 100 * time.Millisecond
	for try := 1; ; try++ {
		st, w, err := transport.Connect(ctx, net, addr, hello)
		var refused *transport.RefusedError
		var handshake *security.HandshakeError
		if err == nil || errors.As(err, &refused) || errors.As(err, &handshake) {
			return st, w, err
		}
		if try == 1 {
			log.Info("waiting for the scheduler", "addr", addr, "err", err)
		}
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("%w (tried %d times)", err, try)
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// ID is the worker's address.
func (w *Worker) ID() protocol.WorkerID { return w.id }

// Gossip is where the scheduler's membership cluster is joined, if it runs
// one, and the key the scheduler handed over to encrypt it, if any.
func (w *Worker) Gossip() (addr string, key []byte) { return w.gossip, w.gossipKey }

// Done is closed once the worker has closed, by Close, Retire, or because
// the scheduler went away.
func (w *Worker) Done() <-chan struct{} { return w.done }

// Store is the worker's result store.
func (w *Worker) Store() *store.Store { return w.store }

// Close leaves the cluster: the scheduler sees the worker as lost. Tasks
// still running finish in the background and their results are dropped.
func (w *Worker) Close() error {
	w.once.Do(func() {
		close(w.done)
		w.sched.Close()
		w.ln.Close()
		w.cancel()
		// Running tasks see their context end; one that ignores it is left
		// behind after closeWait rather than holding Close.
		finished := make(chan struct{})
		go func() {
			w.runners.Wait()
			close(finished)
		}()
		select {
		case <-finished:
		case <-time.After(closeWait):
		}
		w.removeSpillDir()
	})
	return nil
}

// closeWait bounds how long Close waits for the tasks running.
const closeWait = 10 * time.Second

// Retire leaves the cluster gracefully: the worker asks the scheduler to
// take its work elsewhere and to copy the results only it holds to other
// workers, waits until told it may go (or ctx ends), then closes.
func (w *Worker) Retire(ctx context.Context) error {
	w.enqueue(&protocol.Retire{})
	var err error
	select {
	case <-w.retired:
	case <-w.done:
	case <-ctx.Done():
		err = fmt.Errorf("retire: %w; leaving anyway, the scheduler recomputes what was lost", ctx.Err())
	}
	w.Close()
	return err
}

// Closing reports whether the worker is closed or closing.
func (w *Worker) Closing() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// handle feeds the core under the lock and carries out what it decided.
func (w *Worker) handle(f func(s *worker.State)) {
	w.mu.Lock()
	if w.Closing() {
		w.mu.Unlock()
		return
	}
	f(w.state)
	out := w.state.Outbox()
	paused, _ := w.state.Paused()
	if w.mem.paused.Swap(paused) != paused && paused {
		w.act.pauses.Add(1)
	}
	wake := false
	for _, in := range out {
		switch in.Kind {
		case worker.Send:
			wake = wake || len(w.pending) == 0
			w.pending = append(w.pending, in.Msg)
		case worker.Drop:
			// Under the lock: a drop must not overtake a later result
			// stored under the same key.
			for _, k := range in.Keys {
				w.store.Delete(k)
			}
		}
	}
	w.mu.Unlock()
	for _, in := range out {
		switch in.Kind {
		case worker.Execute:
			if w.log.Enabled(context.Background(), slog.LevelDebug) {
				w.log.Debug("execute", "key", in.Task.Key)
			}
			w.exec <- job{in.Task, in.Shuffle, in.Pieces} // the core runs at most as many as there are threads
		case worker.Gather:
			go w.gather(in.From, in.Keys)
		case worker.Spill:
			w.spill(in.Bytes)
		case worker.Merge:
			select {
			case w.merges <- in.Merge:
			default: // the queue is full: this goroutine runs it
				w.merge(in.Merge)
			}
		case worker.Prefetch:
			go w.prefetch(in.Task)
		}
	}
	if wake {
		w.wakeFlusher()
	}
}

// enqueue sends m to the scheduler with the core's next messages.
func (w *Worker) enqueue(m protocol.Msg) {
	w.mu.Lock()
	w.pending = append(w.pending, m)
	w.mu.Unlock()
	w.wakeFlusher()
}

func (w *Worker) wakeFlusher() {
	select {
	case w.flushc <- struct{}{}:
	default:
	}
}

// flushToScheduler sends the core's messages in batches: what piles up
// while it waits for its turn goes out as one.
func (w *Worker) flushToScheduler() {
	for {
		select {
		case <-w.flushc:
		case <-w.done:
			return
		}
		runtime.Gosched()
		w.mu.Lock()
		msgs := w.pending
		w.pending = nil
		w.mu.Unlock()
		transport.LogMsgs(w.log, "to scheduler", "", msgs)
		if len(msgs) > 0 && w.sched.Send(msgs) != nil {
			w.Close()
			return
		}
	}
}

func (w *Worker) readScheduler() {
	for {
		msgs, err := w.sched.Recv()
		if err != nil {
			if !w.Closing() {
				w.log.Info("disconnected from the scheduler")
			}
			w.Close()
			return
		}
		transport.LogMsgs(w.log, "from scheduler", "", msgs)
		w.handle(func(s *worker.State) {
			for _, m := range msgs {
				switch m := m.(type) {
				case *protocol.ComputeTask:
					s.ComputeTask(m)
				case *protocol.FreeKeys:
					s.FreeKeys(m)
				case *protocol.StealRequest:
					s.StealRequest(m)
				case *protocol.Replicate:
					s.Replicate(m)
				case *protocol.PeerLost:
					// Transfers with it end now, not when TCP gives up.
					w.log.Info("peer lost: transfers with it end", "peer", m.Worker)
					w.conns.Lost(string(m.Worker))
				case *protocol.Retired:
					w.retiredOnce.Do(func() { close(w.retired) })
				case *protocol.DropShuffle:
					s.DropShuffle(m)
				case *protocol.Profile:
					if m.Start {
						w.startProfile()
					} else {
						go w.stopProfile(m.ID)
					}
				default:
					w.log.Warn("unexpected message from the scheduler", "type", fmt.Sprintf("%T", m))
				}
			}
		})
	}
}

// job is a task to run, with its shuffle's run for a shuffle task, and
// the store keys of an unpack's pieces.
type job struct {
	task    *graph.Task
	shuffle *protocol.ShuffleRun
	pieces  [][]graph.Key
}

// mergesQueued bounds the merges that wait for a thread; past it, the
// goroutine that delivered the pieces runs the merge itself.
const mergesQueued = 1024

// runTasks is one of the worker's threads. It runs the merges of the
// shuffle outputs this worker assembles before its next task: run by the
// goroutine that delivered the last piece of a run of sources, they fell
// to the slower worker's transfers, which then lagged further, while the
// other worker's pieces waited for theirs (db-benchmark's q3 at 1e8 rows:
// one worker 35 partitions ahead, its pieces held, its cores short).
func (w *Worker) runTasks(thread int) {
	defer w.runners.Done()
	for {
		var j job
		select {
		case m := <-w.merges:
			w.merge(m)
			continue
		default:
		}
		select {
		case m := <-w.merges:
			w.merge(m)
			continue
		case j = <-w.exec:
		case <-w.done:
			return
		}
		t := j.task
		g := w.mem.startTask()
		r, terr := w.run(j)
		r.Grew, r.Thread = w.mem.endTask(g), thread
		if terr == nil {
			w.ranTask(t, thread, r.Start, r.Took, r.Nbytes)
		}
		w.handle(func(s *worker.State) {
			if terr != nil {
				s.ExecuteFailed(t.Key, terr)
			} else {
				s.ExecuteDone(t.Key, r)
			}
		})
	}
}

// columnsRead returns the columns of input k that t reads, nil for all:
// those its steps that take k read (registry.Reads), when every one says.
// A spilled partition then reads back those columns alone.
func columnsRead(t *graph.Task, k graph.Key) []string {
	steps := t.Chain
	if len(steps) == 0 {
		steps = []*graph.Task{t}
	}
	var cols []string
	for _, st := range steps {
		if !slices.Contains(st.Inputs, k) {
			continue
		}
		c, ok := registry.Reads(st.Op, st.Args)
		if !ok {
			return nil
		}
		for _, name := range c {
			if !slices.Contains(cols, name) {
				cols = append(cols, name)
			}
		}
	}
	return cols
}

// prefetch has the store read ahead what t will read of its inputs on
// disk.
func (w *Worker) prefetch(t *graph.Task) {
	for _, k := range t.Inputs {
		w.store.Prefetch(k, columnsRead(t, k))
	}
}

// run runs t on its inputs from the store and stores the result. A
// shuffle's transfer pushes its pieces, and its unpack assembles those
// pushed here.
func (w *Worker) run(j job) (worker.Ran, *protocol.TaskError) {
	t, run := j.task, j.shuffle
	inputs := make([]any, len(t.Inputs))
	defer func() {
		for _, v := range inputs {
			registry.Release(v)
		}
	}()
	for i, k := range t.Inputs {
		var v any
		var ok bool
		var err error
		if cols := columnsRead(t, k); cols != nil {
			v, ok, err = w.store.GetColumns(k, cols)
		} else {
			v, ok, err = w.store.Get(k)
		}
		if err != nil || !ok {
			// A lost input (a corrupt spill) is reported as missing first:
			// the scheduler restarts this task, and ignores this failure.
			return worker.Ran{}, &protocol.TaskError{Kind: protocol.Failed, Key: t.Key, Worker: w.id,
				Message: fmt.Sprintf("input %s is not in this worker's store: %v", k, err)}
		}
		inputs[i] = v
	}
	retry := func(err error) *protocol.TaskError {
		return &protocol.TaskError{Kind: protocol.Retry, Key: t.Key, Worker: w.id, Message: err.Error()}
	}
	var pieces [][]any
	if t.Shuffle != nil && t.Shuffle.Role == graph.Unpack {
		var err error
		if pieces, err = w.pieces(run, t.Shuffle, j.pieces); err != nil {
			return worker.Ran{}, retry(err)
		}
		defer releaseAll(pieces)
	}
	start := time.Now()
	result, err := worker.Run(w.ctx, t, inputs, pieces)
	if err == nil && t.Shuffle != nil && t.Shuffle.Role == graph.Transfer {
		split, ok := result.(*registry.Split)
		if !ok {
			registry.Release(result)
			err = fmt.Errorf("a shuffle transfer returned a %T, not a split", result)
		} else if err = w.transfer(t, run, split); err != nil {
			return worker.Ran{}, retry(err)
		}
		result = int64(0)
	}
	took := time.Since(start)
	if err != nil {
		te := &protocol.TaskError{Kind: protocol.Failed, Key: t.Key, Worker: w.id, Message: err.Error(),
			Type: errorType(err), Cause: err}
		var pe *worker.PanicError
		if errors.As(err, &pe) {
			te.Stack = pe.Stack
		}
		return worker.Ran{}, te
	}
	return worker.Ran{Nbytes: w.store.Put(t.Key, result), Start: start, Took: took}, nil
}

// errorType names the Go type of err, looking through fmt's wrapping, for
// a remote client to see what kind of error its operation returned.
func errorType(err error) string {
	name := fmt.Sprintf("%T", err)
	for name == "*fmt.wrapError" {
		err = errors.Unwrap(err)
		name = fmt.Sprintf("%T", err)
	}
	return name
}

// gather fetches keys from a peer into the store.
func (w *Worker) gather(from protocol.WorkerID, keys []graph.Key) {
	got := make(map[graph.Key]int64, len(keys))
	start := time.Now()
	values, err := w.getData(from, keys)
	if err != nil {
		w.log.Warn("fetch failed", "from", from, "keys", len(keys), "err", err)
	}
	var nbytes int64
	for k, v := range values {
		got[k] = w.store.Put(k, v)
		nbytes += got[k]
	}
	if len(values) > 0 {
		w.transferred(from, keys, start, nbytes)
	}
	w.handle(func(s *worker.State) { s.GatherDone(from, got, err != nil) })
}

func (w *Worker) getData(from protocol.WorkerID, keys []graph.Key) (map[graph.Key]any, error) {
	ctx, done := w.conns.Scope(w.ctx, string(from))
	defer done()
	conn, err := w.conns.Get(ctx, string(from))
	if err != nil {
		return nil, err
	}
	values, err := conn.GetData(ctx, keys)
	if ctx.Err() != nil && w.ctx.Err() == nil {
		err = context.Cause(ctx) // the peer was declared lost
	}
	return values, err
}

// ServeStream refuses streams: only the scheduler gets one, from the worker.
func (w *Worker) ServeStream(st transport.Stream) { st.Close() }

// GetData serves results to peers and clients; each value carries a
// reference for the caller. While paused, the worker serves one request at
// a time: reading back spilled values to send them costs memory it lacks.
func (w *Worker) GetData(ctx context.Context, keys []graph.Key) (map[graph.Key]any, error) {
	if w.mem.paused.Load() {
		select {
		case w.mem.serving <- struct{}{}:
			defer func() { <-w.mem.serving }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	values := w.store.GetMany(keys)
	var nbytes int64
	for _, v := range values {
		nbytes += store.SizeOf(v)
	}
	w.act.sent.Add(nbytes)
	return values, nil
}
