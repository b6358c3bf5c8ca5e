package worker

import (
	"errors"
	"fmt"
	"slices"

	"github.com/duskdata/dusk/graph"
)

// Validate checks the worker core's invariants and returns every one
// broken: each task is where its state says (a task to fetch in the fetch
// heap, one in flight in exactly one peer's batch), the counts kept beside
// the tasks equal what they count (a waiting task's inputs not here, the
// tasks executing, the threads free, the memory expected by the tasks
// running), and inputs and dependents link both ways. Tests and the
// simulator call it after every event.
func (s *State) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	flights := map[*task]int{}
	for _, batch := range s.inFlight {
		for _, t := range batch {
			if s.tasks[t.key] == t && t.state == Flight {
				flights[t]++
			}
		}
	}
	executing, threads := 0, 0.0
	var committed int64
	for k, t := range s.tasks {
		if t.key != k {
			bad("task %s is filed under %s", t.key, k)
		}
		if t.state == Fetch {
			for _, w := range t.whoHas {
				if s.byPeer.by[w] == nil {
					bad("task %s is to fetch from %s, which has no queue", k, w)
				}
			}
		}
		if (t.state == Flight) != (flights[t] == 1) {
			bad("task %s is %s, and in %d fetches", k, t.state, flights[t])
		}
		switch t.state {
		case Waiting:
			n := 0
			for _, d := range t.deps {
				if d.state != Memory {
					n++
				}
			}
			if n != t.waitingOn {
				bad("task %s waits on %d inputs, but %d are not here", k, t.waitingOn, n)
			}
		case Executing:
			executing++
			committed += t.need
			if cpu, ok := t.spec.Resources["cpu"]; ok {
				threads += cpu
			} else {
				threads++
			}
		case Ready, Memory, Error, Fetch, Flight:
		}
		if (t.state == Waiting || t.state == Ready || t.state == Executing) && t.spec == nil {
			bad("task %s is %s without a task to run", k, t.state)
		}
		for _, d := range t.deps {
			if s.tasks[d.key] != d {
				bad("task %s has input %s, which is not known", k, d.key)
			}
			if !slices.Contains(d.dependents, t) {
				bad("task %s has input %s, which does not list it as a dependent", k, d.key)
			}
		}
		for _, d := range t.dependents {
			if !slices.Contains(d.deps, t) {
				bad("task %s lists dependent %s, which does not have it as an input", k, d.key)
			}
		}
	}
	s.validateShuffles(bad)
	if executing != s.executing {
		bad("%d tasks are executing, but the count says %d", executing, s.executing)
	}
	if free := float64(s.cfg.NThreads) - threads; s.free["cpu"] != free {
		bad("%g threads are free, but %g should be", s.free["cpu"], free)
	}
	if committed != s.mem.committed {
		bad("the tasks executing are expected to add %d bytes, but the count says %d", committed, s.mem.committed)
	}
	return errors.Join(errs...)
}

// Held lists what the core counts on the store to hold, with sizes: the
// results in memory here and the shuffles' pieces. A driver's store holds
// exactly these between events; the simulator checks that it does.
func (s *State) Held() map[graph.Key]int64 {
	held := map[graph.Key]int64{}
	for k, t := range s.tasks {
		if t.state == Memory {
			held[k] = t.nbytes
		}
	}
	for _, o := range s.sh.outputs {
		for _, pc := range o.got {
			if pc.key != "" {
				held[pc.key] = pc.Bytes
			}
		}
		for _, m := range o.merged {
			if m.key != "" {
				held[m.key] = m.Bytes
			}
		}
	}
	return held
}
