// Package prioq is a priority queue of tasks that keeps each entry's
// priority beside it, so that sifting compares contiguous values instead of
// chasing a pointer per comparison, and that deletes lazily: an entry is
// skipped when its task has left the queue or entered it again since.
//
// Tasks usually arrive in priority order (a graph's roots in order, one
// submission after another), so entries pushed in order go to a FIFO run,
// pushed and popped in O(1); only entries out of order go to a heap.
//
// Must never import: anything of Dusk but internal/protocol and graph.
package prioq

import "github.com/duskdata/dusk/internal/protocol"

// keptEmpty is the most entries' room an emptied run keeps for the next.
const keptEmpty = 4096

// Queue holds items of type T ordered by priority, lowest first.
type Queue[T any] struct {
	run     []entry[T] // in priority order, from runHead on
	runHead int
	entries []entry[T] // a heap of the entries pushed out of order
	seq     uint64
}

type entry[T any] struct {
	prio protocol.Priority
	seq  uint64
	item T
}

// Push adds item and returns the ticket that identifies this entry; the
// caller keeps it to tell a live entry from a stale one.
func (q *Queue[T]) Push(item T, prio protocol.Priority) uint64 {
	q.seq++
	e := entry[T]{prio: prio, seq: q.seq, item: item}
	if n := len(q.run); n == q.runHead || !prio.Less(q.run[n-1].prio) {
		q.run = append(q.run, e)
		return q.seq
	}
	q.entries = append(q.entries, e)
	q.up(len(q.entries) - 1)
	return q.seq
}

// first says where the first entry is: the run (true) or the heap (false);
// ok is false when the queue is empty.
func (q *Queue[T]) first() (fromRun, ok bool) {
	hasRun, hasHeap := q.runHead < len(q.run), len(q.entries) > 0
	switch {
	case hasRun && hasHeap:
		return !q.entryLess(&q.entries[0], &q.run[q.runHead]), true
	case hasRun:
		return true, true
	}
	return false, hasHeap
}

// Peek returns the first entry's item and ticket without removing it.
func (q *Queue[T]) Peek() (T, uint64, bool) {
	fromRun, ok := q.first()
	switch {
	case !ok:
		var zero T
		return zero, 0, false
	case fromRun:
		return q.run[q.runHead].item, q.run[q.runHead].seq, true
	}
	return q.entries[0].item, q.entries[0].seq, true
}

// Pop removes the first entry and returns its item and ticket.
func (q *Queue[T]) Pop() (T, uint64, bool) {
	fromRun, ok := q.first()
	if !ok {
		var zero T
		return zero, 0, false
	}
	if fromRun {
		e := q.run[q.runHead]
		q.run[q.runHead] = entry[T]{}
		q.runHead++
		switch {
		case q.runHead == len(q.run) && cap(q.run) > keptEmpty:
			q.run, q.runHead = nil, 0 // a large graph's room goes with it
		case q.runHead == len(q.run):
			q.run, q.runHead = q.run[:0], 0
		case q.runHead >= 1024 && 2*q.runHead >= len(q.run):
			// Reclaim the consumed half, so a run that never empties
			// does not grow without bound.
			n := copy(q.run, q.run[q.runHead:])
			clear(q.run[n:])
			q.run, q.runHead = q.run[:n], 0
		}
		return e.item, e.seq, true
	}
	e := q.entries[0]
	last := len(q.entries) - 1
	q.entries[0] = q.entries[last]
	q.entries[last] = entry[T]{}
	q.entries = q.entries[:last]
	if last > 0 {
		q.down(0)
	} else if cap(q.entries) > keptEmpty {
		q.entries = nil // as the run's
	}
	return e.item, e.seq, true
}

// Len counts the entries, stale ones included.
func (q *Queue[T]) Len() int { return len(q.run) - q.runHead + len(q.entries) }

func (q *Queue[T]) less(i, j int) bool { return q.entryLess(&q.entries[i], &q.entries[j]) }

func (q *Queue[T]) entryLess(a, b *entry[T]) bool {
	if a.prio != b.prio {
		return a.prio.Less(b.prio)
	}
	return a.seq < b.seq
}

func (q *Queue[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			return
		}
		q.entries[i], q.entries[p] = q.entries[p], q.entries[i]
		i = p
	}
}

func (q *Queue[T]) down(i int) {
	n := len(q.entries)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && q.less(r, l) {
			c = r
		}
		if !q.less(c, i) {
			return
		}
		q.entries[i], q.entries[c] = q.entries[c], q.entries[i]
		i = c
	}
}
