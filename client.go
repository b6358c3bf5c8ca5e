package dusk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"runtime"
	"sync"
	"time"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/dataframe/sql"
	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/progress"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/internal/security"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/internal/transport/grpcnet"
	"github.com/duskdata/dusk/io/cache"
	"github.com/duskdata/dusk/scheduler"
	"github.com/duskdata/dusk/scheduler/server"
	"github.com/duskdata/dusk/worker"
)

// TaskError is why a task failed; errors returned by Compute, Persist and
// futures wrap it when a task failed (errors.As finds it). It unwraps to the
// operation's own error where the task ran in this process, and to a
// RemoteError where it ran in another; errors.Is(err, ErrKilledWorker) and
// the other kinds below ask how it failed.
type TaskError = protocol.TaskError

// RemoteError is an operation's error from a worker in another process: the
// name of its Go type, its text and, after a panic, the stack.
type RemoteError = protocol.RemoteError

// ErrorKind is how a task failed; each kind is an error for errors.Is.
type ErrorKind = protocol.ErrorKind

// The ways a task fails.
const (
	// ErrTaskFailed: the operation returned an error or panicked.
	ErrTaskFailed = protocol.Failed
	// ErrKilledWorker: workers died running the task, too many times.
	ErrKilledWorker = protocol.KilledWorker
	// ErrNoWorker: no worker offers the resources the task asks for.
	ErrNoWorker = protocol.NoWorker
	// ErrLost: an input is gone and cannot be made again.
	ErrLost = protocol.Lost
	// ErrCancelled: the task was cancelled before it finished.
	ErrCancelled = protocol.Cancelled
)

// MaxTasks refuses any step of a computation that would add more than n
// tasks (Metaflow's --max-num-splits): a runaway fan-out fails at once,
// naming the step and its count, instead of flooding the cluster.
func MaxTasks(n int) Option { return func(o *options) { o.maxTasks = n } }

// MaxWorkers lets at most n workers run each computation's tasks at once
// (Metaflow's --max-workers): one Compute, Persist or Map leaves the rest
// of the cluster to others.
func MaxWorkers(n int) Option { return func(o *options) { o.maxWorkers = n } }

// Option configures NewClient.
type Option func(*options)

type options struct {
	address        string
	connectTimeout time.Duration
	workers        int
	threads        int
	resources      graph.Resources
	log            *slog.Logger
	sched          scheduler.Config
	memoryLimit    int64
	fractions      worker.Fractions
	localDir       string
	cache          string
	gpu            bool
	dashboard      string
	progress       io.Writer
	schedulerFile  string
	tls            security.Files
	maxTasks       int
	maxWorkers     int
}

// Address connects to the scheduler of a running cluster ("host:8786"),
// over gRPC, instead of starting a local one.
func Address(addr string) Option { return func(o *options) { o.address = addr } }

// SchedulerFile connects to the scheduler that wrote its address to path
// (`dusk scheduler --scheduler-file`), as Dask's scheduler_file; it waits
// for the file as long as ConnectTimeout allows.
func SchedulerFile(path string) Option { return func(o *options) { o.schedulerFile = path } }

// TLS connects over mutual TLS, as Dask's Security(tls_ca_file,
// tls_client_cert, tls_client_key): ca is the cluster's CA certificate, cert
// and key this client's certificate, signed by it, and its key (PEM files;
// `dusk tls init` writes them). The scheduler refuses a client without one.
func TLS(ca, cert, key string) Option {
	return func(o *options) { o.tls = security.Files{CA: ca, Cert: cert, Key: key} }
}

// ConnectTimeout bounds connecting to the scheduler. Default 10s.
func ConnectTimeout(d time.Duration) Option { return func(o *options) { o.connectTimeout = d } }

// Workers sets how many workers the local cluster starts. Default (and
// for n of 0 or less): one per core.
func Workers(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.workers = n
		}
	}
}

// ThreadsPerWorker sets how many tasks each local worker runs at once. Default 1.
func ThreadsPerWorker(n int) Option { return func(o *options) { o.threads = n } }

// Resources sets what each local worker offers beyond its threads, such as
// {"GPU": 1}; tasks that ask for resources run only where they are offered.
func Resources(r map[string]float64) Option {
	return func(o *options) { o.resources = graph.Resources(r) }
}

// WithGPU runs the operations that have GPU kernels (grouped sums, counts,
// means, minima and maxima; filters and computed columns; array arithmetic,
// sums and means) on workers that offer a GPU, by asking for the "GPU"
// resource; the scheduler places those tasks on GPU workers, and what a
// kernel lacks (nulls, other types) runs on their CPUs. Where no worker
// offers a GPU, everything runs on the CPU. The workers of a local cluster
// offer the GPU when this process has one.
func WithGPU() Option { return func(o *options) { o.gpu = true } }

// Dashboard sets where a local cluster serves its dashboard (live pages of
// the task stream, progress and the workers' memory), as "127.0.0.1:8787"
// or ":0" for a free port; "none" serves none. Default 127.0.0.1:8787, or a
// free port when that one is taken. Client.DashboardLink says where it is.
func Dashboard(addr string) Option { return func(o *options) { o.dashboard = addr } }

// Progress draws the progress of every computation the client waits for
// (Compute, Persist, Gather, a future's Result) on w, a bar per task kind
// with counts, rate and time left, redrawn in place when w is a terminal,
// and a line every 5 seconds when it is not (a file, a CI log).
func Progress(w io.Writer) Option { return func(o *options) { o.progress = w } }

// Logger sets where the client and a local cluster log. Default: nowhere.
func Logger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// KilledWorkerLimit sets how many workers may die running one task before
// the task fails as their suspected killer (local cluster). Default 3.
func KilledWorkerLimit(n int) Option {
	return func(o *options) { o.sched.KilledWorkerLimit = n }
}

// MemoryLimit sets the memory each local worker may use, in bytes. Past
// fractions of it the worker spills results to disk, pauses, or (daemons
// only) is restarted: see MemoryFractions. Default: the machine's memory
// shared among the workers.
func MemoryLimit(bytes int64) Option { return func(o *options) { o.memoryLimit = bytes } }

// MemoryFractions sets the thresholds of the local workers' memory
// management; zero fields keep Dask's defaults (target 0.6, spill 0.7,
// pause 0.8, terminate 0.95). A fraction above 1 acts only past that
// multiple of the limit: a local worker counts its share of this whole
// process, which can pass it.
func MemoryFractions(f Fractions) Option { return func(o *options) { o.fractions = f } }

// LocalDirectory sets where local workers spill results. Default: the
// system's temporary directory.
func LocalDirectory(dir string) Option { return func(o *options) { o.localDir = dir } }

// WithCache keeps the results of per-datum tasks (those that depend on one
// input file or datum, up to the first shuffle or combination) under dir, a
// local path or URL ("file:///var/cache/dusk", "s3://bucket/cache"), keyed
// by the datum's fingerprint and the work done on it. Running a pipeline
// again then recomputes only the datums that were added or changed, and what
// depends on them; changing the pipeline's operations or arguments changes
// the keys, so everything is recomputed. Every worker must reach dir.
func WithCache(dir string) Option { return func(o *options) { o.cache = dir } }

// CacheStats count the cached results that computations loaded and stored.
type CacheStats = cache.Stats

// Fractions are the thresholds of a worker's memory management.
type Fractions = worker.Fractions

// WorkerInfo is what the scheduler knows of a worker, its memory included.
type WorkerInfo = protocol.WorkerInfo

// TaskProgress is where the tasks of one kind stand (Client.Progress).
type TaskProgress = protocol.Progress

// TaskRecord is one task run, as the task stream keeps it (Client.TaskStream).
type TaskRecord = protocol.TaskRecord

// The kinds of task stream records that are not task runs (TaskRecord.Kind).
const (
	RecordTransfer  = protocol.RecordTransfer
	RecordDiskWrite = protocol.RecordDiskWrite
	RecordDiskRead  = protocol.RecordDiskRead
)

// Memory is a worker's memory: its limit, process, managed and spilled
// bytes, and any failure to spill. Unmanaged() is process minus managed.
type Memory = protocol.Memory

// Client is a connection to a Dusk cluster. It is safe for concurrent use.
type Client struct {
	id     protocol.ClientID
	net    transport.Network
	stream transport.Stream
	local  *localCluster
	log    *slog.Logger

	sendMu     sync.Mutex // orders what goes to the scheduler
	mu         sync.Mutex
	keys       map[graph.Key]*keyState
	releasing  []graph.Key // released here, not yet told the scheduler
	flush      chan struct{}
	conns      *transport.Conns
	err        error // why the connection ended
	closed     chan struct{}
	once       sync.Once
	queries    map[uint64]chan protocol.Msg // replies awaited, by query ID
	queryID    uint64
	cacheDir   string
	cacheSt    CacheStats
	gpu        bool      // WithGPU
	noGPU      sync.Once // logs that no worker offers a GPU
	dashboard  string    // the dashboard's URL, "" without one
	streamNext uint64    // the task record TaskStream returns next
	progress   io.Writer // Progress: where waits draw their progress
	maxTasks   int       // MaxTasks; 0: no limit
	sqlOnce    sync.Once
	sql        *sql.Context // the tables SQL queries name (Register)
	maxWorkers int          // MaxWorkers; 0: no limit
}

// keyState is what the client knows of a key it wants.
type keyState struct {
	refs    int // wants: computations and futures holding it
	done    bool
	whoHas  []protocol.WorkerID
	err     error
	nbytes  int64  // the result's memory, as its worker measured it
	version int    // bumped on every report, to tell stale locations
	run     uint64 // the scheduler's run that computed the reported result
	waiters []*waiter
}

type waiter struct {
	remaining int
	done      chan struct{}
}

// NewClient connects to a cluster: with no Address, it starts a local
// cluster in this process, with one worker per core.
func NewClient(ctx context.Context, opts ...Option) (*Client, error) {
	o := options{workers: runtime.NumCPU(), threads: 1, connectTimeout: 10 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		log:      o.log,
		keys:     make(map[graph.Key]*keyState),
		queries:  make(map[uint64]chan protocol.Msg),
		closed:   make(chan struct{}),
		flush:    make(chan struct{}, 1),
		cacheDir: o.cache,
		gpu:      o.gpu,
		progress: o.progress,
		maxTasks: o.maxTasks, maxWorkers: o.maxWorkers,
	}
	schedAddr := o.address
	if o.schedulerFile != "" && schedAddr == "" {
		fctx, cancel := context.WithTimeout(ctx, o.connectTimeout)
		addr, err := server.ReadSchedulerFile(fctx, o.schedulerFile)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("dusk: %w", err)
		}
		schedAddr = addr
	}
	if schedAddr != "" {
		n := grpcnet.New()
		if o.tls.Enabled() {
			tl, err := security.Load(o.tls)
			if err != nil {
				return nil, fmt.Errorf("dusk: %w", err)
			}
			n.TLS = tl
		}
		c.net = n
	} else {
		if o.gpu && o.resources["GPU"] == 0 && gpu.Available() {
			o.resources = oneGPU(o.resources)
		}
		local, err := startLocal(ctx, localConfig{
			Workers: o.workers, Threads: o.threads, Resources: o.resources, Scheduler: o.sched, Log: o.log,
			MemoryLimit: o.memoryLimit, Fractions: o.fractions, LocalDirectory: o.localDir, Dashboard: o.dashboard,
		})
		if err != nil {
			return nil, fmt.Errorf("dusk: start local cluster: %w", err)
		}
		c.local, c.net, schedAddr = local, local.Net, local.Scheduler.Addr()
	}
	c.conns = transport.NewConns(c.net)

	var id [8]byte
	rand.Read(id[:])
	c.id = protocol.ClientID("client-" + hex.EncodeToString(id[:]))
	cctx, cancel := context.WithTimeout(ctx, o.connectTimeout)
	defer cancel()
	var err error
	var welcome *protocol.Welcome
	c.stream, welcome, err = transport.Connect(cctx, c.net, schedAddr, &protocol.HelloClient{Version: protocol.Version, ID: c.id})
	if err != nil {
		if c.local != nil {
			c.local.Close()
		}
		return nil, fmt.Errorf("dusk: %w", err)
	}
	c.dashboard = dashboardLink(welcome.Dashboard, schedAddr)
	go c.read()
	go c.flushReleases()
	collections.PushDefault(c)
	return c, nil
}

// DashboardLink is the URL of the cluster's dashboard, "" if it serves none.
func (c *Client) DashboardLink() string { return c.dashboard }

// dashboardLink makes the dashboard's URL from where the scheduler says it
// listens, on the scheduler's host where it names none.
func dashboardLink(at, sched string) string {
	if at == "" {
		return ""
	}
	host, port, err := net.SplitHostPort(at)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host, _, _ = net.SplitHostPort(sched)
	}
	return "http://" + net.JoinHostPort(host, port) + "/status"
}

// CacheStats returns how many results computations have loaded from the
// cache (WithCache) and stored in it so far.
func (c *Client) CacheStats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cacheSt
}

// WithClient returns a context whose computations run on c.
func WithClient(ctx context.Context, c *Client) context.Context {
	return collections.WithExecutor(ctx, c)
}

// Close releases everything the client holds and disconnects; a local
// cluster stops.
func (c *Client) Close() error {
	c.once.Do(func() {
		collections.RemoveDefault(c)
		c.stream.Close()
		c.mu.Lock()
		if c.err == nil {
			c.err = errors.New("dusk: client closed")
		}
		c.mu.Unlock()
		close(c.closed)
		if c.local != nil {
			c.local.Close()
		}
	})
	return nil
}

// read handles the scheduler's reports until the stream ends.
func (c *Client) read() {
	for {
		msgs, err := c.stream.Recv()
		if err != nil {
			c.mu.Lock()
			if c.err == nil {
				c.err = fmt.Errorf("dusk: %w", c.lostCause(err))
			}
			c.mu.Unlock()
			c.Close()
			return
		}
		c.mu.Lock()
		for _, m := range msgs {
			switch m := m.(type) {
			case *protocol.KeyInMemory:
				if ks := c.keys[m.Key]; ks != nil {
					ks.whoHas, ks.run, ks.nbytes, ks.err = m.WhoHas, m.Run, m.Nbytes, nil
					c.settle(ks)
				}
			case *protocol.KeyErred:
				if ks := c.keys[m.Key]; ks != nil {
					ks.whoHas, ks.err = nil, m.Err
					c.settle(ks)
				}
			case *protocol.WorkersReply:
				c.answer(m.ID, m)
			case *protocol.ProgressReply:
				c.answer(m.ID, m)
			case *protocol.AdaptReply:
				c.answer(m.ID, m)
			case *protocol.TaskStreamReply:
				c.answer(m.ID, m)
			case *protocol.ProfileReply:
				c.answer(m.ID, m)
			case *protocol.SharedReply:
				c.answer(m.ID, m)
			case *protocol.SchedulerReply:
				c.answer(m.ID, m)
			}
		}
		c.mu.Unlock()
	}
}

// Workers describes the cluster's workers, in the order they joined: their
// threads, their tasks, and their memory as they last reported it (about
// every second).
func (c *Client) Workers(ctx context.Context) ([]WorkerInfo, error) {
	ws, err := c.queryWorkers(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("dusk: workers: %w", err)
	}
	return ws, nil
}

// SpillTotals are the bytes of results the workers have moved to disk and
// read back since they started. A local cluster's are counted as they are
// (now is true); a remote cluster's come from the workers' last reports,
// at most a second old.
func (c *Client) SpillTotals(ctx context.Context) (out, in int64, now bool, err error) {
	if c.local != nil {
		out, in = c.local.SpillTotals()
		return out, in, true, nil
	}
	ws, err := c.Workers(ctx)
	for _, w := range ws {
		out += w.Memory.SpilledTotal
		in += w.Memory.UnspilledTotal
	}
	return out, in, false, err
}

// SchedulerMemory is the scheduler process's resident memory now and at
// its peak, in bytes (0 where its system does not say): what a graph of
// many tasks costs it. For the local cluster, it is this process's.
func (c *Client) SchedulerMemory(ctx context.Context) (rss, peak int64, err error) {
	m, err := c.query(ctx, func(id uint64) protocol.Msg { return &protocol.SchedulerQuery{ID: id} })
	if err != nil {
		return 0, 0, fmt.Errorf("dusk: scheduler memory: %w", err)
	}
	r := m.(*protocol.SchedulerReply)
	return r.RSS, r.PeakRSS, nil
}

// WaitForWorkers waits until at least n workers have joined the cluster,
// as Dask's Client.wait_for_workers, and describes them; ctx bounds the wait.
func (c *Client) WaitForWorkers(ctx context.Context, n int) ([]WorkerInfo, error) {
	ws, err := c.queryWorkers(ctx, n)
	if err != nil {
		return nil, fmt.Errorf("dusk: wait for %d workers: %w", n, err)
	}
	return ws, nil
}

// queryWorkers asks the scheduler for its workers once it has atLeast.
func (c *Client) queryWorkers(ctx context.Context, atLeast int) ([]WorkerInfo, error) {
	m, err := c.query(ctx, func(id uint64) protocol.Msg { return &protocol.WorkersQuery{ID: id, AtLeast: atLeast} })
	if err != nil {
		return nil, err
	}
	return m.(*protocol.WorkersReply).Workers, nil
}

// Adapt has the cluster keep between min and max workers, as Dask's
// cluster.adapt: its scheduler's provider starts workers when tasks queue
// and retires idle ones (each hands its results on first), never more than
// the scheduler's --max-workers. A local cluster adapts with workers in
// this process; a remote scheduler needs a provider: `dusk cluster`, or
// `dusk scheduler --provider local|kubernetes`.
func (c *Client) Adapt(ctx context.Context, min, max int) error {
	if min < 0 || max < min || max == 0 {
		return fmt.Errorf("dusk: adapt: want 0 <= min <= max and max > 0, got %d and %d", min, max)
	}
	m, err := c.query(ctx, func(id uint64) protocol.Msg { return &protocol.Adapt{ID: id, Min: min, Max: max} })
	if err != nil {
		return fmt.Errorf("dusk: adapt: %w", err)
	}
	if r := m.(*protocol.AdaptReply); r.Err != "" {
		return fmt.Errorf("dusk: adapt: %s", r.Err)
	}
	return nil
}

// Progress reports where the cluster's tasks stand by kind (key prefix):
// waiting, processing, in memory, done (ran, result released since) and
// erred, as Dask's progress panel.
func (c *Client) Progress(ctx context.Context) ([]TaskProgress, error) {
	m, err := c.query(ctx, func(id uint64) protocol.Msg { return &protocol.ProgressQuery{ID: id} })
	if err != nil {
		return nil, fmt.Errorf("dusk: progress: %w", err)
	}
	return m.(*protocol.ProgressReply).Progress, nil
}

// TaskStream returns the scheduler's recent task records (it keeps the last
// 100,000), oldest first, as Dask's get_task_stream: each task's key, kind,
// worker and thread, when it ran by its worker's clock, and its result's
// size; and the workers' transfers and disk I/O (Kind RecordTransfer,
// RecordDiskWrite, RecordDiskRead; Thread -1), as they report them, about
// every second. Records start from the client's last call; the first call
// returns all that are kept.
func (c *Client) TaskStream(ctx context.Context) ([]TaskRecord, error) {
	c.mu.Lock()
	since := c.streamNext
	c.mu.Unlock()
	r, err := c.streamFrom(ctx, since)
	if err != nil {
		return nil, fmt.Errorf("dusk: task stream: %w", err)
	}
	c.mu.Lock()
	c.streamNext = max(c.streamNext, r.Next)
	c.mu.Unlock()
	return r.Records, nil
}

// answer hands a reply to the query waiting for it; called under c.mu.
func (c *Client) answer(id uint64, m protocol.Msg) {
	if q := c.queries[id]; q != nil {
		delete(c.queries, id)
		q <- m
	}
}

// query sends the message ask builds with a fresh ID and waits for the
// scheduler's reply to it.
func (c *Client) query(ctx context.Context, ask func(id uint64) protocol.Msg) (protocol.Msg, error) {
	reply := make(chan protocol.Msg, 1)
	c.mu.Lock()
	c.queryID++
	id := c.queryID
	c.queries[id] = reply
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.queries, id)
		c.mu.Unlock()
	}()
	if err := c.send([]protocol.Msg{ask(id)}); err != nil {
		return nil, err
	}
	select {
	case m := <-reply:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		c.mu.Lock()
		defer c.mu.Unlock()
		return nil, c.err
	}
}

// Threads is how many tasks the cluster's workers run at once, their
// threads together. It implements collections.Threaded.
func (c *Client) Threads(ctx context.Context) (int, error) {
	ws, err := c.Workers(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, w := range ws {
		n += w.NThreads
	}
	return n, nil
}

// MemoryPerThread is the least memory limit per thread among the workers:
// what one task may use, for readers to size their partitions by (0 when
// no worker states a limit).
func (c *Client) MemoryPerThread(ctx context.Context) (int64, error) {
	ws, err := c.Workers(ctx)
	if err != nil {
		return 0, err
	}
	var per int64
	for _, w := range ws {
		limit := w.Memory.Limit
		if limit <= 0 {
			limit = int64(w.Resources["memory"])
		}
		if limit <= 0 && c.local != nil {
			limit = c.local.MemoryLimit()
		}
		if p := limit / int64(max(w.NThreads, 1)); p > 0 && (per == 0 || p < per) {
			per = p
		}
	}
	return per, nil
}

// settle marks ks reported and wakes its waiters. Called with c.mu held.
func (c *Client) settle(ks *keyState) {
	ks.done = true
	ks.version++
	for _, w := range ks.waiters {
		if w.remaining--; w.remaining == 0 {
			close(w.done)
		}
	}
	ks.waiters = nil
}

// submit sends the tasks that keys need and takes a want on each key. The
// graph is culled to what keys need and its linear chains fused, unless
// every task in it is wanted and stands alone (futures), where that would
// only cost.
func (c *Client) submit(g *graph.Graph, keys []graph.Key, independent bool) error {
	if !independent {
		g = graph.Cull(g, keys)
		if c.cacheDir != "" {
			var st CacheStats
			var err error
			if g, st, err = cache.Rewrite(g, keys, c.cacheDir); err != nil {
				return fmt.Errorf("dusk: %w", err)
			}
			c.mu.Lock()
			c.cacheSt.Hits += st.Hits
			c.cacheSt.Stores += st.Stores
			c.mu.Unlock()
		}
	}
	if err := c.checkSteps(g); err != nil {
		return err
	}
	if !independent {
		g = graph.Fuse(g, keys)
	}
	if c.gpu {
		g = c.onGPU(g)
	}
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	for _, k := range keys {
		ks := c.keys[k]
		if ks == nil {
			ks = &keyState{}
			c.keys[k] = ks
		}
		ks.refs++
	}
	// Releases made before this submission go first: a key released and
	// wanted again must end up wanted.
	msgs := c.takeReleases()
	c.mu.Unlock()
	msgs = append(msgs, &protocol.UpdateGraph{Tasks: graph.Specs(g.Tasks()), Keys: keys, MaxWorkers: c.maxWorkers})
	if err := c.stream.Send(msgs); err != nil {
		return fmt.Errorf("dusk: submit: %w", c.lostCause(err))
	}
	return nil
}

// checkSteps refuses g if one of its steps (its tasks of one key prefix)
// has more tasks than MaxTasks allows.
func (c *Client) checkSteps(g *graph.Graph) error {
	if c.maxTasks <= 0 || g.Len() <= c.maxTasks {
		return nil
	}
	counts := map[string]int{}
	for _, t := range g.Tasks() {
		counts[t.Key.Prefix()]++
	}
	for _, t := range g.Tasks() {
		if err := c.checkTasks(t.Key.Prefix(), counts[t.Key.Prefix()]); err != nil {
			return err
		}
	}
	return nil
}

// checkTasks refuses a step of n tasks if MaxTasks allows fewer.
func (c *Client) checkTasks(step string, n int) error {
	if c.maxTasks > 0 && n > c.maxTasks {
		return fmt.Errorf("dusk: step %s would add %d tasks, more than MaxTasks(%d) allows", step, n, c.maxTasks)
	}
	return nil
}

// onGPU returns g with its tasks that run operations with GPU kernels
// asking for a GPU, when a worker offers one, and g itself otherwise. The
// tasks are copied: g may be a collection's own graph.
func (c *Client) onGPU(g *graph.Graph) *graph.Graph {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, err := c.Workers(ctx)
	offered := false
	for _, w := range ws {
		offered = offered || w.Resources["GPU"] > 0
	}
	if err != nil || !offered {
		c.noGPU.Do(func() { c.log.Info("dusk: WithGPU: no worker offers a GPU; running on the CPU", "err", err) })
		return g
	}
	out := graph.New()
	for _, t := range g.Tasks() {
		if usesGPU(t) && t.Resources["GPU"] == 0 {
			cp := *t
			cp.Resources = oneGPU(t.Resources)
			t = &cp
		}
		out.Add(t)
	}
	return out
}

// oneGPU returns a copy of r with one GPU.
func oneGPU(r graph.Resources) graph.Resources {
	out := maps.Clone(r)
	if out == nil {
		out = graph.Resources{}
	}
	out["GPU"] = 1
	return out
}

// usesGPU reports whether t, or a step of it if fused, has GPU kernels.
func usesGPU(t *graph.Task) bool {
	if registry.HasGPU(t.Op) {
		return true
	}
	for _, s := range t.Chain {
		if registry.HasGPU(s.Op) {
			return true
		}
	}
	return false
}

// send sends msgs to the scheduler after any pending releases.
func (c *Client) send(msgs []protocol.Msg) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	c.mu.Lock()
	pending := c.takeReleases()
	c.mu.Unlock()
	if err := c.stream.Send(append(pending, msgs...)); err != nil {
		return fmt.Errorf("dusk: %w", c.lostCause(err))
	}
	return nil
}

// lostCause explains err, a failure of the stream to the scheduler: why the
// local cluster stopped when a signal stopped it, or else that the
// connection to the scheduler was lost (the stream's own error says only
// that it closed).
func (c *Client) lostCause(err error) error {
	if c.local != nil {
		if cause := c.local.Stopped(); cause != nil {
			return cause
		}
	}
	return fmt.Errorf("lost the connection to the scheduler: %w", err)
}

// takeReleases returns the pending releases as a message, if any. Called
// with c.mu held.
func (c *Client) takeReleases() []protocol.Msg {
	if len(c.releasing) == 0 {
		return nil
	}
	m := &protocol.ReleaseKeys{Keys: c.releasing}
	c.releasing = nil
	return []protocol.Msg{m}
}

// release gives up one want on each key; keys nobody here wants any more are
// released on the cluster, in batches: many futures released one by one go
// out as one message.
func (c *Client) release(keys []graph.Key) {
	c.mu.Lock()
	first := len(c.releasing) == 0
	for _, k := range keys {
		ks := c.keys[k]
		if ks == nil {
			continue
		}
		if ks.refs--; ks.refs == 0 {
			delete(c.keys, k)
			c.releasing = append(c.releasing, k)
		}
	}
	wake := first && len(c.releasing) > 0
	c.mu.Unlock()
	if wake {
		select {
		case c.flush <- struct{}{}:
		default:
		}
	}
}

// flushReleases sends the released keys until the client closes.
func (c *Client) flushReleases() {
	for {
		select {
		case <-c.flush:
		case <-c.closed:
			return
		}
		runtime.Gosched() // let a loop of releases finish its batch
		c.sendMu.Lock()
		c.mu.Lock()
		msgs := c.takeReleases()
		closed := c.err != nil
		c.mu.Unlock()
		if len(msgs) > 0 && !closed {
			c.stream.Send(msgs)
		}
		c.sendMu.Unlock()
	}
}

// wait blocks until every key is in memory or erred, and returns the first
// error among them.
func (c *Client) wait(ctx context.Context, keys []graph.Key) error {
	if err := c.waitSome(ctx, keys, len(keys)); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		if ks := c.keys[k]; ks != nil && ks.err != nil {
			return fmt.Errorf("dusk: %w", ks.err)
		}
	}
	return nil
}

// waitSome waits until need of keys are reported, in memory or failed (or
// until all that are still wanted are).
func (c *Client) waitSome(ctx context.Context, keys []graph.Key, need int) error {
	w := &waiter{done: make(chan struct{})}
	c.mu.Lock()
	pending := 0
	for _, k := range keys {
		if ks := c.keys[k]; ks != nil && !ks.done {
			pending++
		}
	}
	if done := len(keys) - pending; done < need {
		w.remaining = min(need-done, pending)
		for _, k := range keys {
			if ks := c.keys[k]; ks != nil && !ks.done {
				ks.waiters = append(ks.waiters, w)
			}
		}
	}
	wait := w.remaining > 0 // read under the lock: settle counts it down
	c.mu.Unlock()
	if !wait {
		return nil
	}
	if c.progress != nil {
		stop := c.drawProgress(ctx)
		defer stop()
	}
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closed:
		return c.closedErr()
	}
}

// keyDone reports whether key was reported, and its error if it failed.
func (c *Client) keyDone(k graph.Key) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ks := c.keys[k]
	if ks == nil || !ks.done {
		return false, nil
	}
	if ks.err != nil {
		return true, fmt.Errorf("dusk: %w", ks.err)
	}
	return true, nil
}

// cancel ends the waits on k with ErrCancelled where this client's last
// want on it is the one being given up.
func (c *Client) cancel(k graph.Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ks := c.keys[k]; ks != nil && !ks.done && ks.refs == 1 {
		ks.err = &TaskError{Kind: ErrCancelled, Key: k, Message: "cancelled"}
		c.settle(ks)
	}
}

// gather fetches the values of keys, which must be in memory, from the
// workers that hold them. A key whose holder is gone is waited for again:
// the scheduler recomputes it and reports where it is.
func (c *Client) gather(ctx context.Context, keys []graph.Key) ([]any, error) {
	values := make(map[graph.Key]any, len(keys))
	for attempt := 0; ; attempt++ {
		type fetch struct {
			keys     []graph.Key
			versions []int
			runs     []uint64
		}
		plan := make(map[protocol.WorkerID]*fetch)
		c.mu.Lock()
		for _, k := range keys {
			if _, ok := values[k]; ok {
				continue
			}
			ks := c.keys[k]
			if ks == nil || len(ks.whoHas) == 0 {
				c.mu.Unlock()
				return nil, fmt.Errorf("dusk: gather %s: no worker holds it", k)
			}
			w := ks.whoHas[0]
			f := plan[w]
			if f == nil {
				f = &fetch{}
				plan[w] = f
			}
			f.keys = append(f.keys, k)
			f.versions = append(f.versions, ks.version)
			f.runs = append(f.runs, ks.run)
		}
		c.mu.Unlock()
		if len(plan) == 0 {
			break
		}
		type result struct {
			w    protocol.WorkerID
			vals map[graph.Key]any
			err  error
		}
		results := make(chan result, len(plan))
		for w, f := range plan {
			go func(w protocol.WorkerID, keys []graph.Key) {
				vals, err := c.getData(ctx, w, keys)
				results <- result{w, vals, err}
			}(w, f.keys)
		}
		var lost []graph.Key
		var missing []protocol.Msg
		for range plan {
			r := <-results
			for k, v := range r.vals {
				values[k] = v
			}
			f := plan[r.w]
			c.mu.Lock()
			for i, k := range f.keys {
				if _, ok := r.vals[k]; ok {
					continue
				}
				// The holder does not have it: tell the scheduler, and wait
				// for its next report, unless one came in meanwhile.
				if ks := c.keys[k]; ks != nil && ks.version == f.versions[i] {
					ks.done = false
				}
				lost = append(lost, k)
				missing = append(missing, &protocol.MissingData{Key: k, From: r.w, Run: f.runs[i]})
			}
			c.mu.Unlock()
		}
		if len(missing) > 0 {
			c.send(missing)
		}
		if len(lost) == 0 {
			break
		}
		if attempt >= 10 {
			releaseAll(values)
			return nil, fmt.Errorf("dusk: gather: %d keys could not be fetched after %d attempts, e.g. %s", len(lost), attempt+1, lost[0])
		}
		if err := c.wait(ctx, lost); err != nil {
			releaseAll(values)
			return nil, err
		}
	}
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = values[k]
	}
	return out, nil
}

func releaseAll(values map[graph.Key]any) {
	for _, v := range values {
		registry.Release(v)
	}
}

func (c *Client) getData(ctx context.Context, w protocol.WorkerID, keys []graph.Key) (map[graph.Key]any, error) {
	conn, err := c.conns.Get(ctx, string(w))
	if err != nil {
		return nil, err
	}
	return conn.GetData(ctx, keys)
}

// Compute runs what keys need in g and returns their values, which the
// caller owns. It implements collections.Executor.
func (c *Client) Compute(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]any, error) {
	if err := c.submit(g, keys, false); err != nil {
		return nil, err
	}
	defer c.release(keys)
	if err := c.wait(ctx, keys); err != nil {
		return nil, err
	}
	return c.gather(ctx, keys)
}

// Nbytes is the memory the results of keys take where they are held, as
// their workers measured it; ok is false unless every key is held.
func (c *Client) Nbytes(keys []graph.Key) (total int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		ks := c.keys[k]
		if ks == nil || !ks.done || ks.err != nil {
			return 0, false
		}
		total += ks.nbytes
	}
	return total, true
}

// Persist runs what keys need in g and keeps the results on the workers
// until the returned function is called. It implements collections.Executor.
func (c *Client) Persist(ctx context.Context, g *graph.Graph, keys []graph.Key) (func(), error) {
	if err := c.submit(g, keys, false); err != nil {
		return nil, err
	}
	if err := c.wait(ctx, keys); err != nil {
		c.release(keys)
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { c.release(keys) }) }, nil
}

// progressEvery is how often a wait asks for progress to draw it.
const progressEvery = 250 * time.Millisecond

// drawProgress draws the cluster's progress on c.progress until the
// returned stop is called, which draws it a last time.
func (c *Client) drawProgress(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		r := progress.New(c.progress, time.Now())
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for first := true; ; first = false {
			final := false
			if !first {
				select {
				case <-tick.C:
				case <-done:
					final = true
				case <-ctx.Done():
					return
				}
			}
			if ps, err := c.Progress(ctx); err == nil {
				r.Update(ps, time.Now(), final)
			}
			if final {
				return
			}
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}
