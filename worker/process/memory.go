package process

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/procmem"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/workspace"
	"github.com/duskdata/dusk/worker"
	"github.com/duskdata/dusk/worker/store"
)

const (
	// memoryInterval is how often a worker reads its memory, as Dask does.
	memoryInterval = 100 * time.Millisecond
	// metricsEvery is how many readings go by between reports to the scheduler.
	metricsEvery = 10
	// freeOSEvery bounds how often a worker forces freed memory back to the
	// operating system: it costs a full garbage collection.
	freeOSEvery = 2 * time.Second
)

// memoryMonitor is the worker driver's side of memory management: the
// readings it feeds the core, and what it does between them.
type memoryMonitor struct {
	cfg WorkerConfig
	// ownProcess says the worker is its process (a nanny may watch its
	// resident set), not one of a local cluster's.
	ownProcess bool
	space      *workspace.Space // the spill directory, made for this worker
	paused     atomic.Bool      // mirrors the core, for GetData
	serving    chan struct{}    // one GetData at a time while paused
	spilling   atomic.Bool      // a spill runs

	mu      sync.Mutex
	running map[*taskGrowth]struct{} // the tasks whose growth is measured
	read    chan struct{}            // closed after the next reading; nil until asked for
	last    atomic.Int64             // the last reading's process memory
}

// NextReading returns a channel closed once the worker has taken its next
// memory reading, acted on it and reported it: a test waits on it for the
// worker's memory state to move rather than sleeping.
func (w *Worker) NextReading() <-chan struct{} {
	w.mem.mu.Lock()
	defer w.mem.mu.Unlock()
	if w.mem.read == nil {
		w.mem.read = make(chan struct{})
	}
	return w.mem.read
}

// readingDone wakes the callers of NextReading.
func (m *memoryMonitor) readingDone() {
	m.mu.Lock()
	if m.read != nil {
		close(m.read)
		m.read = nil
	}
	m.mu.Unlock()
}

// taskGrowth measures how much the process's memory grows while a task
// runs: from the last reading before it starts to the highest reading
// until it ends. It reads nothing itself: a read of the process's memory
// per task cost trivial tasks seven times their time (40,000 tasks a
// second fell to 5,500). A task shorter than the reading interval
// mostly sees no reading and shows no growth beyond its result, which the
// core counts anyway; its prefix is learnt from the runs that do. A task
// running beside others is charged their growth too, which errs on the
// side of running fewer at once.
type taskGrowth struct {
	start, high int64
}

// startTask begins measuring a task's growth; nil without a memory limit,
// where admission does not need it.
func (m *memoryMonitor) startTask() *taskGrowth {
	if m.cfg.MemoryLimit <= 0 {
		return nil
	}
	p := m.last.Load()
	g := &taskGrowth{start: p, high: p}
	m.mu.Lock()
	if m.running == nil {
		m.running = map[*taskGrowth]struct{}{}
	}
	m.running[g] = struct{}{}
	m.mu.Unlock()
	return g
}

// endTask returns how much memory grew while the task of g ran.
func (m *memoryMonitor) endTask(g *taskGrowth) int64 {
	if g == nil {
		return 0
	}
	m.mu.Lock()
	delete(m.running, g)
	m.mu.Unlock()
	if g.start == 0 {
		return 0 // it started before the first reading
	}
	return max(g.high-g.start, 0)
}

// saw records a reading for the tasks running.
func (m *memoryMonitor) saw(process int64) {
	m.last.Store(process)
	m.mu.Lock()
	for g := range m.running {
		g.high = max(g.high, process)
	}
	m.mu.Unlock()
}

// lastFreeOS is when a worker of this process last forced freed memory
// back to the operating system: once per freeOSEvery for the whole
// process, however many workers it runs.
var lastFreeOS atomic.Int64

// startStore creates the worker's store and its spill directory, a fresh
// one under cfg.LocalDirectory, purging there those of workers whose
// processes died. A directory that cannot be created leaves
// spilling to fail: the worker pauses when it has to spill, and says why.
func (w *Worker) startStore(cfg WorkerConfig) {
	w.mem = memoryMonitor{cfg: cfg, serving: make(chan struct{}, 1)}
	if cfg.ProcessMemory == nil {
		w.mem.cfg.ProcessMemory = func(int64) int64 { return procmem.InUse() }
		w.mem.ownProcess = true
	}
	base := cfg.LocalDirectory
	if base == "" {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "dusk-worker")
	if space, err := workspace.New(base, "dusk-worker-"); err != nil {
		w.log.Warn("no spill directory: results cannot spill to disk", "err", err)
	} else {
		w.mem.space, dir = space, space.Dir
	}
	w.store = store.New(store.Config{
		Dir: dir, Compression: cfg.SpillCompression, OnDisk: w.onDisk,
		OnLost: func(k graph.Key) {
			w.log.Warn("a spilled result failed its checksum: it is recomputed", "key", k)
			w.handle(func(s *worker.State) { s.Lost([]graph.Key{k}) })
		},
	})
}

func (w *Worker) removeSpillDir() {
	if w.mem.space != nil {
		w.mem.space.Close()
	}
}

// spill moves results to disk until the store holds at most keep bytes,
// in the background, one spill at a time: the monitor goes on reading
// memory (and pausing) while a large spill runs.
func (w *Worker) spill(keep int64) {
	if !w.mem.spilling.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer w.mem.spilling.Store(false)
		if err := w.store.SpillTo(keep); err != nil {
			w.log.Error("cannot spill results to disk", "err", err)
		}
	}()
}

// monitorMemory reads the worker's memory every memoryInterval, feeds the
// core (which spills and pauses), and reports to the scheduler.
func (w *Worker) monitorMemory() {
	tick := time.NewTicker(memoryInterval)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-tick.C:
		case <-w.done:
			return
		}
		r := w.readMemory()
		if w.mem.cfg.MemoryLimit > 0 {
			w.mem.saw(r.Process)
			w.handle(func(s *worker.State) { s.Memory(r) })
		}
		if n%metricsEvery == 0 {
			w.report(r)
		}
		w.mem.readingDone()
	}
}

// readMemory takes a reading. The process memory it reads leaves out the
// Go heap's free memory (procmem.InUse), which is neither results nor
// needed, and which the runtime reuses without the kernel: handing it back
// to the operating system whenever the process passed the target made the
// next allocations fault it in again, which on a virtual machine costs more
// than the work (db-benchmark's j1 at 1e8: 52.8 / 30.3 s, against 20.6 /
// 2.4 s keeping it). But the nanny counts the resident set, free memory
// and all: once that passes the spill threshold with a twentieth of the
// limit free, a full collection turns garbage into free memory and hands
// all free memory back, at most every freeOSEvery below the pause
// threshold and at every reading above it, so that the nanny never kills a
// worker for memory it does not use. (With little free, the collection
// would only stall the readings while tasks grow.) A local cluster's
// workers share their process's resident set and have no nanny: they
// keep free memory for the runtime to reuse (at 5e8 rows, handing it back
// every 2 s made each read-back of spilled columns fault its memory in
// again, 40% of the time in the kernel).
func (w *Worker) readMemory() worker.MemoryReading {
	managed := w.store.Managed()
	process := w.mem.cfg.ProcessMemory(managed)
	if limit := w.mem.cfg.MemoryLimit; limit > 0 && w.mem.ownProcess {
		f := w.mem.cfg.Fractions.WithDefaults()
		rss := max(procmem.Private(0), process)
		now, last := time.Now().UnixNano(), lastFreeOS.Load()
		if float64(rss) > f.Spill*float64(limit) && rss-process > limit/20 &&
			(float64(rss) > f.Pause*float64(limit) || now-last > int64(freeOSEvery)) &&
			lastFreeOS.CompareAndSwap(last, now) {
			debug.FreeOSMemory()
			managed = w.store.Managed()
			process = w.mem.cfg.ProcessMemory(managed)
		}
	}
	return worker.MemoryReading{Process: process, Managed: managed, Out: w.store.Out(), SpillErr: w.store.SpillError()}
}

// SpillTotals are the bytes of results the worker has moved to disk and
// read back since it started, as they are now.
func (w *Worker) SpillTotals() (out, in int64) {
	st := w.store.Stats()
	return st.SpillBytes, st.UnspillBytes
}

// report sends the scheduler the worker's memory.
func (w *Worker) report(r worker.MemoryReading) {
	st := w.store.Stats()
	m := protocol.Memory{Limit: w.mem.cfg.MemoryLimit, Process: r.Process, Managed: r.Managed,
		Spilled: w.store.Spilled(), SpilledTotal: st.SpillBytes, UnspilledTotal: st.UnspillBytes}
	if r.SpillErr != nil {
		m.SpillError = r.SpillErr.Error()
	}
	w.enqueue(w.metrics(m))
}

// LimitGoMemory sets the Go runtime's soft memory limit of a process that
// is one worker to its spill threshold, unless GOMEMLIMIT set one: the
// collector then works harder before the worker must spill, and returns
// freed memory to the operating system sooner. (A local cluster leaves the
// program's collector alone.)
func LimitGoMemory(limit int64, f worker.Fractions) {
	if limit > 0 && debug.SetMemoryLimit(-1) == math.MaxInt64 {
		debug.SetMemoryLimit(int64(f.WithDefaults().Spill * float64(limit)))
	}
}
