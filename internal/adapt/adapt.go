// Package adapt grows and shrinks a cluster's pool of workers with its
// load, as Dask's Adaptive does: when tasks queue it asks its Provider for
// workers enough to finish the queued work in about TargetDuration, and
// when workers have idled for IdleAfter it has the provider stop them,
// gracefully (each hands the results only it holds to others), down to
// Min; never more than Max workers (Metaflow's --max-workers).
//
// Must never import: scheduler, worker, scheduler/server, worker/process, or the collections.
package adapt

import (
	"context"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/duskdata/dusk/internal/protocol"
)

// Provider starts and stops workers: processes of this machine, or the
// pods of a Kubernetes Deployment.
type Provider interface {
	// Workers names the workers asked for and not stopped, joined or
	// still starting; a worker joins the scheduler under its name. An
	// error skips the step: a pool of unknown size is left as it is.
	Workers() ([]string, error)
	// Start asks for n more workers.
	Start(ctx context.Context, n int) error
	// Stop stops the named workers: each retires, handing its results on.
	Stop(ctx context.Context, names []string) error
}

// Policy bounds and paces the pool.
type Policy struct {
	Min, Max int
	// Interval is how often the load is looked at (default 1s).
	Interval time.Duration
	// IdleAfter is how long a worker runs nothing before it is stopped
	// (default 10s).
	IdleAfter time.Duration
	// TargetDuration is how long the queued work should take (default 5s).
	TargetDuration time.Duration
}

func (p *Policy) defaults() {
	if p.Interval <= 0 {
		p.Interval = time.Second
	}
	if p.IdleAfter <= 0 {
		p.IdleAfter = 10 * time.Second
	}
	if p.TargetDuration <= 0 {
		p.TargetDuration = 5 * time.Second
	}
	p.Min = max(p.Min, 0)
	p.Max = max(p.Max, p.Min, 1)
}

// Load is what the scheduler says of its work.
type Load struct {
	// Pending counts the tasks not yet finished: waiting, queued, running.
	Pending int
	// Mean is the recent mean time a task took; 0 before any ran.
	Mean    time.Duration
	Workers []protocol.WorkerInfo
}

// unknownDuration is what a task is assumed to take before any has run,
// as Dask assumes.
const unknownDuration = 500 * time.Millisecond

// Decision is one step's plan: start Start more workers, stop Stop.
type Decision struct {
	Target int
	Start  int
	Stop   []string
}

// Adaptive decides, step by step, from the load and what the provider has.
type Adaptive struct {
	mu        sync.Mutex
	policy    Policy
	idleSince map[string]time.Time // by name, of the provider's workers
}

// New returns an Adaptive with policy p (zero fields take defaults).
func New(p Policy) *Adaptive {
	p.defaults()
	return &Adaptive{policy: p, idleSince: map[string]time.Time{}}
}

// Policy is the policy in force, defaults filled in.
func (a *Adaptive) Policy() Policy {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.policy
}

// SetBounds changes Min and Max (Client.Adapt).
func (a *Adaptive) SetBounds(lo, hi int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.policy.Min, a.policy.Max = lo, hi
	a.policy.defaults()
}

// Step decides what to do at now, given the load and the names of the
// workers the provider has.
func (a *Adaptive) Step(now time.Time, load Load, have []string) Decision {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.policy
	threads := 1
	if n := len(load.Workers); n > 0 {
		sum := 0
		for _, w := range load.Workers {
			sum += w.NThreads
		}
		threads = max(1, sum/n)
	}
	mean := load.Mean
	if mean <= 0 {
		mean = unknownDuration
	}
	work := time.Duration(load.Pending) * mean
	want := int(math.Ceil(work.Seconds() / p.TargetDuration.Seconds() / float64(threads)))
	if load.Pending > 0 {
		want = max(want, 1)
	}
	target := min(max(want, p.Min), p.Max)

	d := Decision{Target: target}
	if len(have) < target {
		d.Start = target - len(have)
		return d
	}
	// Track how long each of the provider's joined workers has idled.
	joined := map[string]protocol.WorkerInfo{}
	for _, w := range load.Workers {
		if w.Name != "" && !w.Retiring {
			joined[w.Name] = w
		}
	}
	var idle []protocol.WorkerInfo
	for _, name := range have {
		w, ok := joined[name]
		if !ok || w.Processing > 0 {
			delete(a.idleSince, name)
			continue
		}
		since, seen := a.idleSince[name]
		if !seen {
			a.idleSince[name] = now
			continue
		}
		if now.Sub(since) >= p.IdleAfter {
			idle = append(idle, w)
		}
	}
	for name := range a.idleSince {
		if !slices.Contains(have, name) {
			delete(a.idleSince, name)
		}
	}
	excess := len(have) - target
	if excess <= 0 || len(idle) == 0 {
		return d
	}
	// The ones holding least go first: they have least to hand on.
	slices.SortFunc(idle, func(x, y protocol.WorkerInfo) int {
		if x.Held != y.Held {
			return int(x.Held - y.Held)
		}
		return strings.Compare(x.Name, y.Name)
	})
	for _, w := range idle[:min(excess, len(idle))] {
		d.Stop = append(d.Stop, w.Name)
		delete(a.idleSince, w.Name)
	}
	return d
}

// Run steps a every policy interval until ctx ends: load reads the
// scheduler, and the provider carries the decisions out.
func Run(ctx context.Context, a *Adaptive, load func() Load, prov Provider, log *slog.Logger) {
	tick := time.NewTicker(a.Policy().Interval)
	defer tick.Stop()
	last := -1
	for ; ctx.Err() == nil; wait(ctx, tick) {
		have, err := prov.Workers()
		if err != nil {
			log.Warn("adaptive: could not list the workers", "err", err)
			continue
		}
		d := a.Step(time.Now(), load(), have)
		if d.Target != last {
			p := a.Policy()
			log.Info("adaptive: target workers", "target", d.Target, "min", p.Min, "max", p.Max)
			last = d.Target
		}
		if d.Start > 0 {
			log.Info("adaptive: starting workers", "n", d.Start)
			if err := prov.Start(ctx, d.Start); err != nil {
				log.Warn("adaptive: could not start workers", "err", err)
			}
		}
		if len(d.Stop) > 0 {
			log.Info("adaptive: retiring idle workers", "workers", d.Stop)
			if err := prov.Stop(ctx, d.Stop); err != nil {
				log.Warn("adaptive: could not stop workers", "err", err)
			}
		}
	}
}

// wait waits for the next tick or for ctx to end.
func wait(ctx context.Context, tick *time.Ticker) {
	select {
	case <-ctx.Done():
	case <-tick.C:
	}
}
