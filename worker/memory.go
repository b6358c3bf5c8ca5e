package worker

import (
	"fmt"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// Fractions are the thresholds of a worker's memory management, as
// fractions of its memory limit. A zero field takes its default; a field
// above 1 triggers only past that multiple of the limit (a local cluster's
// worker counts its share of the whole process, which can pass it).
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
	// Out is the bytes in memory of the results only on disk: what reading
	// them all back would add.
	Out int64
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

	s.mem.process, s.mem.managed, s.mem.out, s.mem.spillAsked = r.Process, r.Managed, r.Out, keep < r.Managed
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
	}
	s.schedule() // what waited for memory may fit now
}

// admission is the worker's memory admission: a task or a fetch starts only
// if the memory it is expected to add fits under the pause threshold beside
// the last reading and what has started since, so that the worker spills
// and runs fewer tasks at once rather than pass its limit. What a task adds
// is learnt per key prefix (tasks of one prefix do the same work on data of
// about one size), as the scheduler learns durations: the growth of the
// process's memory while one ran, its result included.
type admission struct {
	process, managed int64                       // the last reading
	out              int64                       // the last reading's results on disk
	spillAsked       bool                        // a spill for the last reading is under way
	committed        int64                       // expected by the tasks executing now
	fetches          map[protocol.WorkerID]int64 // bytes of each fetch in flight
	grows            map[string]int64            // by key prefix: what a task was seen to add
}

// learn takes note of what a task of prefix added to memory: the estimate
// follows a larger figure at once and a smaller one halfway, so that one
// small task does not let several large ones start together.
func (a *admission) learn(prefix string, grew int64) {
	if a.grows == nil {
		a.grows = map[string]int64{}
	}
	if old, ok := a.grows[prefix]; ok && grew < old {
		grew = (old + grew) / 2
	}
	a.grows[prefix] = grew
}

func (a *admission) fetching(from protocol.WorkerID, n int64) {
	if a.fetches == nil {
		a.fetches = map[protocol.WorkerID]int64{}
	}
	a.fetches[from] = n
}

func (a *admission) fetched(from protocol.WorkerID) { delete(a.fetches, from) }

// inFlight is the bytes of the fetches in flight (one per peer, a few).
func (a *admission) inFlight() int64 {
	var n int64
	for _, b := range a.fetches {
		n += b
	}
	return n
}

// room is the memory left under the pause threshold beside the last
// reading and what has started since.
func (s *State) room() int64 {
	return of(s.cfg.Fractions.Pause, s.cfg.MemoryLimit) - s.mem.process - s.mem.committed - s.mem.inFlight()
}

// admit says what t is expected to add to memory and whether it may start:
// without a limit everything fits; with one, t fits if that fits in the
// room, or if nothing else runs (down to one task at a time). When it does
// not, results are asked to spill to make room.
func (s *State) admit(t *task) (need int64, fits bool) {
	if s.cfg.MemoryLimit <= 0 {
		return 0, true
	}
	need = s.mem.grows[t.key.Prefix()] + s.readBack(t)
	room := s.room()
	if need <= room || s.executing == 0 {
		return need, true
	}
	s.spillFor(need - room)
	return need, false
}

// readBack is what t's inputs are expected to add as they are read back
// from disk: twice their size (the value and the buffers it is decoded
// through; a task that counted the rows of a spilled partition of 73 MiB
// grew by about 115), times the share of all results that the last
// reading found on disk, as the core does not follow which results the
// store spilled. (What a task adds is learnt with its inputs in memory or
// not; this covers the change when they were, and are no longer.)
func (s *State) readBack(t *task) int64 {
	if s.mem.out <= 0 {
		return 0
	}
	var inputs int64
	for _, d := range t.deps {
		inputs += d.nbytes
	}
	return int64(2 * float64(inputs) * float64(s.mem.out) / float64(s.mem.out+s.mem.managed))
}

// tooLarge says why t cannot run on this worker, or "": its inputs alone,
// which must all be in memory as it runs, pass the terminate threshold, so
// that running it would get the worker killed again and again. (What its
// prefix was seen to add only holds tasks back: a reading shared with
// other tasks and the collector's garbage is no ground to fail one.)
func (s *State) tooLarge(t *task) string {
	limit := s.cfg.MemoryLimit
	if limit <= 0 {
		return ""
	}
	inputs := int64(0)
	for _, d := range t.deps {
		inputs += d.nbytes
	}
	if inputs <= of(s.cfg.Fractions.Terminate, limit) {
		return ""
	}
	return fmt.Sprintf("task %s needs at least %s of memory for its inputs, more than %.0f%% of the worker's %s limit: give the worker more memory, or split the inputs into more partitions",
		t.key, FormatBytes(inputs), 100*s.cfg.Fractions.Terminate, FormatBytes(limit))
}

// held counts n more bytes of results in memory until the next reading:
// past the target, the least recently used spill, as the store is told at
// once rather than at the next reading.
func (s *State) held(n int64) {
	limit := s.cfg.MemoryLimit
	if limit <= 0 {
		return
	}
	s.mem.managed += n
	if target := of(s.cfg.Fractions.Target, limit); s.mem.managed > target {
		s.out = append(s.out, Instruction{Kind: Spill, Bytes: target})
	}
}

// admitFetch says whether a fetch of n bytes may start: it fits in the
// room, or nothing else is fetched or runs.
func (s *State) admitFetch(n int64) bool {
	if s.cfg.MemoryLimit <= 0 || n <= s.room() || s.executing == 0 && len(s.inFlight) == 0 {
		return true
	}
	s.spillFor(n - s.room())
	return false
}

// spillFor asks the store, once per reading, to spill short bytes of
// results if it holds them in memory.
func (s *State) spillFor(short int64) {
	if s.mem.spillAsked || s.mem.managed <= 0 {
		return
	}
	s.mem.spillAsked = true
	s.out = append(s.out, Instruction{Kind: Spill, Bytes: max(s.mem.managed-short, 0)})
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
		s.queueFetch(t)
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
