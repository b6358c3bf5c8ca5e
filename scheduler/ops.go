package scheduler

import (
	"strings"

	"github.com/duskdata/dusk/graph"
)

// opSet is the operations one binary registers, shared by the workers
// that announce the same list.
type opSet struct{ has map[string]bool }

// opBooks follow which operations the workers' binaries have, so that in a
// pool of workers of several binaries (the dusk command beside a program
// serving as its own worker) a task goes to a worker that has its
// operations, or waits for one. With one binary nothing is checked. An
// operation no binary announces restricts nothing either: the worker that
// runs it says it lacks it, naming how to register it (and an operation a
// binary registers after its hello still runs).
type opBooks struct {
	sets map[string]*opSet // every list announced, by the joined list
	// partial are the operations some binary announced and another lacks:
	// only tasks of these are placed by operation.
	partial map[string]bool
}

func newOpBooks() opBooks { return opBooks{sets: map[string]*opSet{}, partial: map[string]bool{}} }

// join books a worker announcing ops and returns its set.
func (b *opBooks) join(ops []string) *opSet {
	k := strings.Join(ops, "\x00")
	if set := b.sets[k]; set != nil {
		return set
	}
	set := &opSet{has: make(map[string]bool, len(ops))}
	for _, op := range ops {
		set.has[op] = true
	}
	b.sets[k] = set
	clear(b.partial)
	for _, a := range b.sets {
		for op := range a.has {
			for _, o := range b.sets {
				if !o.has[op] {
					b.partial[op] = true
				}
			}
		}
	}
	return set
}

// runs says whether a worker of set may run the task of spec: it has each
// of the task's operations that some binary has and another lacks.
func (b *opBooks) runs(set *opSet, spec graph.Spec) bool {
	if len(b.partial) == 0 || set == nil {
		return true
	}
	ok := true
	spec.Ops(func(op string) { ok = ok && (!b.partial[op] || set.has[op]) })
	return ok
}

// everywhere says whether any worker may run the task of spec, so that it
// may be queued and handed to whichever has room.
func (b *opBooks) everywhere(spec graph.Spec) bool {
	if len(b.partial) == 0 {
		return true
	}
	ok := true
	spec.Ops(func(op string) { ok = ok && !b.partial[op] })
	return ok
}
