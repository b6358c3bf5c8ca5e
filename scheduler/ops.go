package scheduler

import (
	"slices"
	"strings"

	"github.com/duskdata/dusk/graph"
)

// opSet is the operations one binary registers, shared by the workers
// that announce the same list.
type opSet struct {
	has     map[string]bool
	workers int // present workers of this binary
}

// opBooks follow which operations the workers' binaries have, so that in a
// pool of workers of several binaries (the dusk command beside a program
// serving as its own worker) a task goes to a worker that has its
// operations, or waits for one (up to Config.NoHolderTimeout). With one
// binary nothing is checked: a task of an operation its workers lack runs
// and fails there, naming it and how to register it, at once.
type opBooks struct {
	sets map[string]*opSet // every list announced, by the joined list
	// partial are the operations some binary announced and another lacks:
	// only tasks of these, or of names none announced, are placed by
	// operation.
	partial map[string]bool
}

func newOpBooks() opBooks { return opBooks{sets: map[string]*opSet{}, partial: map[string]bool{}} }

// join books a worker announcing ops and returns its set.
func (b *opBooks) join(ops []string) *opSet {
	k := strings.Join(ops, "\x00")
	set := b.sets[k]
	if set == nil {
		set = &opSet{has: make(map[string]bool, len(ops))}
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
	}
	set.workers++
	return set
}

// leave books a worker of set gone.
func (b *opBooks) leave(set *opSet) {
	if set != nil {
		set.workers--
	}
}

// mixed says workers of more than one binary have joined.
func (b *opBooks) mixed() bool { return len(b.sets) > 1 }

// placed says whether op decides where a task goes: one binary has it and
// another lacks it, or in a mixed pool none has it.
func (b *opBooks) placed(op string) bool {
	if b.partial[op] {
		return true
	}
	if !b.mixed() {
		return false
	}
	for _, set := range b.sets {
		if set.has[op] {
			return false // every binary has it
		}
	}
	return true
}

// runs says whether a worker of set may run the task of spec: it has each
// of the task's names that decide placement.
func (b *opBooks) runs(set *opSet, spec graph.Spec) bool {
	if !b.mixed() || set == nil {
		return true
	}
	ok := true
	spec.Ops(func(op string) { ok = ok && (set.has[op] || !b.placed(op)) })
	return ok
}

// everywhere says whether any worker may run the task of spec, so that it
// may be queued and handed to whichever has room.
func (b *opBooks) everywhere(spec graph.Spec) bool {
	if !b.mixed() {
		return true
	}
	ok := true
	spec.Ops(func(op string) { ok = ok && !b.placed(op) })
	return ok
}

// missing are the names of the task of spec that no present worker's
// binary has, in a mixed pool: the task waits for a worker that has them.
func (b *opBooks) missing(spec graph.Spec) []string {
	if !b.mixed() {
		return nil
	}
	var out []string
	spec.Ops(func(op string) {
		for _, set := range b.sets {
			if set.workers > 0 && set.has[op] {
				return
			}
		}
		if !slices.Contains(out, op) {
			out = append(out, op)
		}
	})
	return out
}
