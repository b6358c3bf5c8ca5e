package server

import (
	"time"

	"github.com/duskdata/dusk/internal/adapt"
	"github.com/duskdata/dusk/internal/protocol"
)

// adaptive is the scheduler's pool policy, if it has a provider.
type adaptive struct {
	a          *adapt.Adaptive
	maxWorkers int    // the bound no Adapt request passes
	begin      func() // starts the policy's loop at the first Adapt, if set
}

// SetAdaptive gives the scheduler the policy its provider follows, so that
// clients may change its bounds (Client.Adapt) up to maxWorkers; begin, if
// not nil, starts following it at the first such request.
func (s *Scheduler) SetAdaptive(a *adapt.Adaptive, maxWorkers int, begin func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.adaptive = adaptive{a: a, maxWorkers: maxWorkers, begin: begin}
}

// adapt answers a client's Adapt; called under s.mu.
func (s *Scheduler) adapt(m *protocol.Adapt) *protocol.AdaptReply {
	if s.adaptive.a == nil {
		return &protocol.AdaptReply{ID: m.ID, Err: "the scheduler has no provider to start workers with: start it with `dusk cluster` or `dusk scheduler --provider local` (or kubernetes)"}
	}
	hi := m.Max
	if s.adaptive.maxWorkers > 0 {
		hi = min(hi, s.adaptive.maxWorkers)
	}
	s.adaptive.a.SetBounds(min(m.Min, hi), hi)
	if s.adaptive.begin != nil {
		s.adaptive.begin()
		s.adaptive.begin = nil
	}
	s.log.Info("adaptive: bounds set by a client", "min", min(m.Min, hi), "max", hi)
	return &protocol.AdaptReply{ID: m.ID, Max: hi}
}

// Load is what the adaptive policy needs to know of the scheduler's work.
func (s *Scheduler) Load() adapt.Load {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := adapt.Load{Mean: time.Duration(s.stream.mean), Workers: s.state.Workers()}
	for _, p := range s.state.Progress() {
		l.Pending += p.Waiting + p.Processing
	}
	return l
}
