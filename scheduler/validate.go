package scheduler

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Validate checks the scheduler's invariants and returns every one broken:
// each task is where its state says (a processing task on a live worker's
// list, a task in memory held by live workers, and no other), the counts
// kept beside the tasks equal what they count (a waiting task's inputs not
// in memory, a worker's bytes held), inputs and dependents link both ways,
// and no released task is still wanted. Tests and the simulator call it
// after every event; it costs a pass over every task.
func (s *State) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	held := map[*worker]int64{}
	limited := map[*limit]map[*worker]int{}
	for t := range s.tasks.all() {
		k := t.key()
		if l := t.ex().limit; l != nil && t.state == Processing {
			if limited[l] == nil {
				limited[l] = map[*worker]int{}
			}
			limited[l][t.processingOn]++
		}
		if s.tasks.get(t.key()) != t {
			bad("task %s is not found under its key", t.key())
		}
		switch t.state {
		case Forgotten:
			bad("task %s is forgotten but still known", k)
		case Processing:
			w := t.processingOn
			if w == nil || s.workers[w.id] != w {
				bad("task %s is processing on a worker that is not live", k)
			} else if int(t.slot()) >= len(w.assigned) || w.assigned[t.slot()] != t {
				bad("task %s is processing on %s but not in its slot %d", k, w.id, t.slot())
			}
		case Waiting:
			n := 0
			for _, d := range t.deps() {
				if d.state != Memory {
					n++
				}
			}
			if n != int(t.waitingOn) {
				bad("task %s waits on %d inputs, but %d are not in memory", k, t.waitingOn, n)
			}
		case Released:
			if w := t.ex().wantedBy; len(w) > 0 {
				bad("task %s is released while clients %v want it", k, w)
			}
		}
		if t.state != Processing && t.processingOn != nil {
			bad("task %s is %s but assigned to %s", k, t.state, t.processingOn.id)
		}
		if t.state == Memory && len(t.whoHas) == 0 {
			bad("task %s is in memory on no worker", k)
		}
		if t.state != Memory && len(t.whoHas) > 0 {
			bad("task %s is %s but held by %d workers", k, t.state, len(t.whoHas))
		}
		for _, w := range t.whoHas {
			if s.workers[w.id] != w {
				bad("task %s is held by %s, which is not live", k, w.id)
			}
			held[w] += t.nbytes
		}
		for _, d := range t.deps() {
			if s.tasks.get(d.key()) != d {
				bad("task %s has input %s, which is not known", k, d.key())
			}
			if !slices.Contains(d.dependents(), t) {
				bad("task %s has input %s, which does not list it as a dependent", k, d.key())
			}
		}
		for _, d := range t.dependents() {
			if !slices.Contains(d.deps(), t) {
				bad("task %s lists dependent %s, which does not have it as an input", k, d.key())
			}
		}
	}
	for id, w := range s.workers {
		if w.nbytes != held[w] {
			bad("worker %s counts %d bytes held, but its tasks in memory hold %d", id, w.nbytes, held[w])
		}
		if len(w.estimates) != len(w.assigned) {
			bad("worker %s has %d estimates for %d tasks", id, len(w.estimates), len(w.assigned))
		}
		for i, t := range w.assigned {
			if t.processingOn != w || int(t.slot()) != i || t.state != Processing {
				bad("worker %s has %s in slot %d, which is %s there", id, t.key(), i, t.state)
			}
		}
	}
	for l, on := range limited {
		if len(on) > l.max {
			bad("a computation limited to %d workers runs on %d", l.max, len(on))
		}
		if !maps.Equal(on, l.on) {
			bad("a limited computation counts %d workers running it, its tasks say %d", len(l.on), len(on))
		}
	}
	s.validateCounts(bad)
	for _, w := range s.waits {
		if len(s.workers) >= w.q.AtLeast {
			bad("client %s waits for %d workers, and %d are here", w.client, w.q.AtLeast, len(s.workers))
		}
	}
	return errors.Join(errs...)
}
