package cluster

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/dashboard"
	"github.com/duskdata/dusk/internal/procmem"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/scheduler"
	"github.com/duskdata/dusk/worker"
)

// LocalConfig describes an in-process cluster.
type LocalConfig struct {
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

// Local is a scheduler and its workers in this process, joined by an
// in-process network: the same drivers and cores as the daemons.
type Local struct {
	Net       *transport.Inproc
	Scheduler *Scheduler
	Workers   []*Worker // guarded by mu once the cluster runs
	// DashboardAddr is where the dashboard listens, "" without one.
	DashboardAddr string

	dashboard *http.Server
	mu        sync.Mutex
	limit     int64 // each worker's memory limit
}

// MemoryLimit is the memory limit of each of the cluster's workers.
func (l *Local) MemoryLimit() int64 { return l.limit }

// StartLocal starts an in-process cluster.
func StartLocal(ctx context.Context, cfg LocalConfig) (*Local, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.MemoryLimit <= 0 {
		cfg.MemoryLimit = procmem.Total() / int64(cfg.Workers)
	}
	l := &Local{Net: transport.NewInproc(), limit: cfg.MemoryLimit}
	var logs *dashboard.Logs
	if cfg.Dashboard != "none" {
		logs = dashboard.NewLogs(dashboard.LogsKept)
		cfg.Log = slog.New(logs.Handler(cfg.Log.Handler()))
	}
	var err error
	if l.Scheduler, err = StartScheduler(l.Net, "inproc://scheduler", Gossip{}, cfg.Scheduler, cfg.Log); err != nil {
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
	for i := 0; i < cfg.Workers; i++ {
		_, err := l.AddWorker(ctx, WorkerConfig{NThreads: cfg.Threads, Resources: cfg.Resources,
			MemoryLimit: cfg.MemoryLimit, Fractions: cfg.Fractions, LocalDirectory: cfg.LocalDirectory}, cfg.Log)
		if err != nil {
			l.Close()
			return nil, err
		}
	}
	return l, nil
}

// AddWorker starts one more worker. Its process memory is its results plus
// its share of the rest of this process's.
func (l *Local) AddWorker(ctx context.Context, cfg WorkerConfig, log *slog.Logger) (*Worker, error) {
	if cfg.ProcessMemory == nil {
		cfg.ProcessMemory = l.processShare
	}
	if cfg.ProcessCPU == nil {
		cfg.ProcessCPU = l.cpuShare
	}
	w, err := StartWorker(ctx, l.Net, l.Scheduler.Addr(), cfg, log)
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
func (l *Local) processShare(managed int64) int64 {
	l.mu.Lock()
	ws := l.Workers
	l.mu.Unlock()
	var all int64
	n := 0
	for _, w := range ws {
		if !w.closing() {
			all += w.store.Managed()
			n++
		}
	}
	rest := max(procmem.InUse()-all, 0)
	return managed + rest/int64(max(n, 1))
}

// cpuShare is a worker's CPU time: an equal share of the process's.
func (l *Local) cpuShare() time.Duration {
	l.mu.Lock()
	n := len(l.Workers)
	l.mu.Unlock()
	return ProcessCPU() / time.Duration(max(n, 1))
}

// Close stops the workers and the scheduler.
func (l *Local) Close() error {
	if l.dashboard != nil {
		l.dashboard.Close()
	}
	for _, w := range l.Workers {
		w.Close()
	}
	return l.Scheduler.Close()
}
