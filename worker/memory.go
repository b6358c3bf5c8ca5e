package worker

import (
	"container/heap"
	"fmt"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// Fractions are the thresholds of a worker's memory management, as
// fractions of its memory limit. A zero field takes its default; a field
// above 1 never triggers.
type Fractions struct {
	// Target, of managed memory: the least recently used results go to disk.
	Target float64
	// Spill, of process memory: results go to disk until process memory is
	// under Target again.
	Spill float64
	// Pause, of process memory: no task or fetch starts until memory falls.
	Pause float64
	// Terminate, of process memory: the nanny restarts the worker.
	Terminate float64
}

// DefaultFractions are Dask's.
var DefaultFractions = Fractions{Target: 0.60, Spill: 0.70, Pause: 0.80, Terminate: 0.95}

// WithDefaults fills the zero fields with DefaultFractions.
func (f Fractions) WithDefaults() Fractions {
	pick := func(v, def float64) float64 {
		if v <= 0 {
			return def
		}
		return v
	}
	return Fractions{
		Target:    pick(f.Target, DefaultFractions.Target),
		Spill:     pick(f.Spill, DefaultFractions.Spill),
		Pause:     pick(f.Pause, DefaultFractions.Pause),
		Terminate: pick(f.Terminate, DefaultFractions.Terminate),
	}
}

// of returns the bytes that fraction f of limit is.
func of(f float64, limit int64) int64 { return int64(f * float64(limit)) }

// MemoryReading is the worker's memory as the driver measured it.
type MemoryReading struct {
	// Process is the memory the operating system counts for the worker
	// (its resident set).
	Process int64
	// Managed is the bytes of the results held in memory, by the store's count.
	Managed int64
	// SpillErr is why the store last failed to write to disk, if it did and
	// has not succeeded since.
	SpillErr error
}

// Memory takes a reading. Past the target of managed memory, or past the
// spill threshold of process memory, it asks the driver to spill (a Spill
// instruction with the managed bytes to keep). Past the pause threshold, or
// when it must spill and the disk refuses, the worker pauses: it starts no
// task and no fetch, and tells the scheduler, until a reading falls under.
func (s *State) Memory(r MemoryReading) {
	limit := s.cfg.MemoryLimit
	if limit <= 0 {
		return
	}
	f := s.cfg.Fractions
	target := of(f.Target, limit)
	keep := r.Managed
	if r.Managed > target {
		keep = target
	}
	if over := r.Process - target; r.Process > of(f.Spill, limit) && r.Managed-over < keep {
		keep = max(r.Managed-over, 0)
	}
	if keep < r.Managed {
		s.out = append(s.out, Instruction{Kind: Spill, Bytes: keep})
	}

	var reason string
	switch {
	case r.Process > of(f.Pause, limit):
		reason = fmt.Sprintf("process memory %s is over %.0f%% of the %s limit",
			FormatBytes(r.Process), 100*f.Pause, FormatBytes(limit))
	case r.SpillErr != nil && keep < r.Managed:
		reason = fmt.Sprintf("%s of results must spill to disk, which fails: %v", FormatBytes(r.Managed-keep), r.SpillErr)
	}
	paused := reason != ""
	s.pauseReason = reason
	if paused != s.paused {
		s.paused = paused
		s.send(&protocol.WorkerStatus{Paused: paused, Reason: reason})
		if !paused {
			s.schedule()
		}
	}
}

// Paused reports whether the worker holds back tasks and fetches, and why.
func (s *State) Paused() (bool, string) { return s.paused, s.pauseReason }

// Lost takes note of results the store could not read back (a spill file
// that failed its checksum). Local tasks that need them wait again, and the
// scheduler hears that this worker does not hold them: it frees them here
// and has them recomputed or fetched, and the waiting tasks sent again.
func (s *State) Lost(keys []graph.Key) {
	for _, k := range keys {
		t := s.tasks[k]
		if t == nil || t.state != Memory {
			continue
		}
		t.state = Fetch
		heap.Push(&s.fetch, t)
		for _, d := range t.dependents {
			switch d.state {
			case Ready:
				if len(d.spec.Resources) > 0 {
					s.removeSpecial(d)
				}
				d.state = Waiting
				d.waitingOn = 1
			case Waiting:
				d.waitingOn++
			}
		}
		s.send(&protocol.MissingData{Key: k, From: s.cfg.ID, Run: t.run})
	}
	s.schedule()
}

// FormatBytes writes n in binary units: "256 MiB".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.3g %ciB", v, "KMGTPE"[i])
}
