package cluster

import (
	"context"
	"log/slog"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/scheduler"
)

// LocalConfig describes an in-process cluster.
type LocalConfig struct {
	Workers   int // default 1
	Threads   int // per worker; default 1
	Resources graph.Resources
	Scheduler scheduler.Config
	Log       *slog.Logger
}

// Local is a scheduler and its workers in this process, joined by an
// in-process network: the same drivers and cores as the daemons.
type Local struct {
	Net       *transport.Inproc
	Scheduler *Scheduler
	Workers   []*Worker
}

// StartLocal starts an in-process cluster.
func StartLocal(ctx context.Context, cfg LocalConfig) (*Local, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	l := &Local{Net: transport.NewInproc()}
	var err error
	if l.Scheduler, err = StartScheduler(l.Net, "inproc://scheduler", "", cfg.Scheduler, cfg.Log); err != nil {
		return nil, err
	}
	for i := 0; i < cfg.Workers; i++ {
		w, err := StartWorker(ctx, l.Net, l.Scheduler.Addr(), WorkerConfig{NThreads: cfg.Threads, Resources: cfg.Resources}, cfg.Log)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.Workers = append(l.Workers, w)
	}
	return l, nil
}

// AddWorker starts one more worker.
func (l *Local) AddWorker(ctx context.Context, cfg WorkerConfig, log *slog.Logger) (*Worker, error) {
	w, err := StartWorker(ctx, l.Net, l.Scheduler.Addr(), cfg, log)
	if err != nil {
		return nil, err
	}
	l.Workers = append(l.Workers, w)
	return w, nil
}

// Close stops the workers and the scheduler.
func (l *Local) Close() error {
	for _, w := range l.Workers {
		w.Close()
	}
	return l.Scheduler.Close()
}
