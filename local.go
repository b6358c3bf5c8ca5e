package dusk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/adapt"
	"github.com/duskdata/dusk/internal/dashboard"
	"github.com/duskdata/dusk/internal/procmem"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/scheduler"
	"github.com/duskdata/dusk/scheduler/server"
	"github.com/duskdata/dusk/worker"
	"github.com/duskdata/dusk/worker/process"
)

// localConfig describes an in-process cluster.
type localConfig struct {
	Workers   int // default 1
	Threads   int // per worker; default 1
	Resources graph.Resources
	// MemoryLimit is each worker's; default the machine's memory shared
	// among the workers.
	MemoryLimit    int64
	Fractions      worker.Fractions
	LocalDirectory string
	Scheduler      scheduler.Config
	Log            *slog.Logger
	// Dashboard is where the dashboard listens: "" for 127.0.0.1:8787, or
	// a free port when that one is taken; "none" for no dashboard.
	Dashboard string
}

// localCluster is a scheduler and its workers in this process, joined by an
// in-process network: the same drivers and cores as the daemons.
type localCluster struct {
	Net       *transport.Inproc
	Scheduler *server.Scheduler
	Workers   []*process.Worker // guarded by mu once the cluster runs
	// DashboardAddr is where the dashboard listens, "" without one.
	DashboardAddr string

	dashboard *http.Server
	mu        sync.Mutex
	limit     int64 // each worker's memory limit
	// stop ends the adaptive loop a client's Adapt starts.
	stop      context.CancelFunc
	closeOnce sync.Once
	closed    chan struct{}
	signalled atomic.Value // the os.Signal that stopped the cluster
}

// MemoryLimit is the memory limit of each of the cluster's workers.
func (l *localCluster) MemoryLimit() int64 { return l.limit }

// startLocal starts an in-process cluster.
func startLocal(ctx context.Context, cfg localConfig) (*localCluster, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.MemoryLimit <= 0 {
		cfg.MemoryLimit = procmem.Total() / int64(cfg.Workers)
	}
	l := &localCluster{Net: transport.NewInproc(), limit: cfg.MemoryLimit, closed: make(chan struct{})}
	var logs *dashboard.Logs
	if cfg.Dashboard != "none" {
		logs = dashboard.NewLogs(dashboard.LogsKept)
		cfg.Log = slog.New(logs.Handler(cfg.Log.Handler()))
	}
	var err error
	if l.Scheduler, err = server.StartScheduler(l.Net, "inproc://scheduler", server.Gossip{}, cfg.Scheduler, cfg.Log); err != nil {
		return nil, err
	}
	if cfg.Dashboard != "none" {
		addr := cfg.Dashboard
		if addr == "" {
			addr = net.JoinHostPort("127.0.0.1", dashboard.DefaultPort)
		}
		dcfg := dashboard.Config{Addr: addr, Fallback: cfg.Dashboard == "", Log: cfg.Log, Logs: logs}
		if l.dashboard, l.DashboardAddr, err = dashboard.Serve(l.Scheduler, dcfg); err != nil {
			l.Scheduler.Close()
			return nil, err
		}
		l.Scheduler.SetDashboard(l.DashboardAddr, nil) // the workers log through cfg.Log
	}
	prov := &localProvider{l: l, log: cfg.Log, cfg: process.WorkerConfig{NThreads: cfg.Threads, Resources: cfg.Resources,
		MemoryLimit: cfg.MemoryLimit, Fractions: cfg.Fractions, LocalDirectory: cfg.LocalDirectory}}
	if err := prov.Start(ctx, cfg.Workers); err != nil {
		l.Close()
		return nil, err
	}
	// The pool keeps its size until a client asks it to adapt.
	a := adapt.New(adapt.Policy{Min: cfg.Workers, Max: cfg.Workers})
	actx, stop := context.WithCancel(context.Background())
	l.stop = stop
	l.Scheduler.SetAdaptive(a, 0, func() { go adapt.Run(actx, a, l.Scheduler.Load, prov, cfg.Log) })
	l.closeOnSignal()
	return l, nil
}

// closeOnSignal closes the cluster when the process is told to stop
// (SIGINT, SIGTERM), so that its workers' directories go with it, then
// raises the signal again: the process ends as it would have, unless the
// program handles the signal itself.
func (l *localCluster) closeOnSignal() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		defer signal.Stop(ch)
		select {
		case sig := <-ch:
			l.signalled.Store(sig)
			l.Close()
			signal.Stop(ch)
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				p.Signal(sig)
			}
		case <-l.closed:
		}
	}()
}

// localProvider is the adaptive Provider of a local cluster: workers in
// this process, named local-1, local-2, ...
type localProvider struct {
	l       *localCluster
	cfg     process.WorkerConfig
	log     *slog.Logger
	mu      sync.Mutex
	started int
	live    map[string]*process.Worker
}

func (p *localProvider) Workers() ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for name, w := range p.live {
		if w.Closing() {
			delete(p.live, name)
			continue
		}
		out = append(out, name)
	}
	return out, nil
}

func (p *localProvider) Start(ctx context.Context, n int) error {
	for range n {
		p.mu.Lock()
		p.started++
		cfg := p.cfg
		cfg.Name = "local-" + strconv.Itoa(p.started)
		p.mu.Unlock()
		w, err := p.l.AddWorker(ctx, cfg, p.log)
		if err != nil {
			return err
		}
		p.mu.Lock()
		if p.live == nil {
			p.live = map[string]*process.Worker{}
		}
		p.live[cfg.Name] = w
		p.mu.Unlock()
	}
	return nil
}

// Stop retires the named workers, each handing its results on first.
func (p *localProvider) Stop(ctx context.Context, names []string) error {
	var errs []error
	for _, name := range names {
		p.mu.Lock()
		w := p.live[name]
		delete(p.live, name)
		p.mu.Unlock()
		if w == nil {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		if err := w.Retire(rctx); err != nil {
			errs = append(errs, fmt.Errorf("retire %s: %w", name, err))
		}
		cancel()
	}
	return errors.Join(errs...)
}

// AddWorker starts one more worker. Its process memory is its results plus
// its share of the rest of this process's.
func (l *localCluster) AddWorker(ctx context.Context, cfg process.WorkerConfig, log *slog.Logger) (*process.Worker, error) {
	if cfg.ProcessMemory == nil {
		cfg.ProcessMemory = l.processShare
	}
	if cfg.ProcessCPU == nil {
		cfg.ProcessCPU = l.cpuShare
	}
	w, err := process.StartWorker(ctx, l.Net, l.Scheduler.Addr(), cfg, log)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.Workers = append(l.Workers, w)
	l.mu.Unlock()
	return w, nil
}

// processShare is a worker's process memory: its results and an equal
// share of the memory the process uses (procmem.InUse) that is not any
// worker's results.
func (l *localCluster) processShare(managed int64) int64 {
	l.mu.Lock()
	ws := l.Workers
	l.mu.Unlock()
	var all int64
	n := 0
	for _, w := range ws {
		if !w.Closing() {
			all += w.Store().Managed()
			n++
		}
	}
	rest := max(procmem.InUse()-all, 0)
	return managed + rest/int64(max(n, 1))
}

// cpuShare is a worker's CPU time: an equal share of the process's.
func (l *localCluster) cpuShare() time.Duration {
	l.mu.Lock()
	n := len(l.Workers)
	l.mu.Unlock()
	return process.ProcessCPU() / time.Duration(max(n, 1))
}

// SpillTotals sum the workers' SpillTotals.
func (l *localCluster) SpillTotals() (out, in int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range l.Workers {
		o, i := w.SpillTotals()
		out, in = out+o, in+i
	}
	return out, in
}

// Stopped says why the cluster stopped when a signal stopped it, nil
// otherwise: a client reports it in place of its broken connection.
func (l *localCluster) Stopped() error {
	if sig, ok := l.signalled.Load().(os.Signal); ok {
		return fmt.Errorf("the local cluster stopped on the signal %q", sig)
	}
	return nil
}

// Close stops the workers and the scheduler; the workers remove their
// directories.
func (l *localCluster) Close() error {
	var err error
	l.closeOnce.Do(func() {
		close(l.closed)
		if l.stop != nil {
			l.stop()
		}
		if l.dashboard != nil {
			l.dashboard.Close()
		}
		l.mu.Lock()
		workers := slices.Clone(l.Workers)
		l.mu.Unlock()
		// At once: each waits up to closeWait for a task that ignores its
		// context.
		var wg sync.WaitGroup
		for _, w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.Close()
			}()
		}
		wg.Wait()
		err = l.Scheduler.Close()
	})
	return err
}
