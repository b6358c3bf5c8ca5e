// Package prioq is a priority queue of tasks that keeps each entry's
// priority beside it, so that sifting compares contiguous values instead of
// chasing a pointer per comparison, and that deletes lazily: an entry is
// skipped when its task has left the queue or entered it again since.
package prioq

import "github.com/duskdata/dusk/internal/protocol"

// Queue holds items of type T ordered by priority, lowest first.
type Queue[T any] struct {
	entries []entry[T]
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
	q.entries = append(q.entries, entry[T]{prio: prio, seq: q.seq, item: item})
	q.up(len(q.entries) - 1)
	return q.seq
}

// Peek returns the first entry's item and ticket without removing it.
func (q *Queue[T]) Peek() (T, uint64, bool) {
	if len(q.entries) == 0 {
		var zero T
		return zero, 0, false
	}
	return q.entries[0].item, q.entries[0].seq, true
}

// Pop removes the first entry and returns its item and ticket.
func (q *Queue[T]) Pop() (T, uint64, bool) {
	if len(q.entries) == 0 {
		var zero T
		return zero, 0, false
	}
	e := q.entries[0]
	last := len(q.entries) - 1
	q.entries[0] = q.entries[last]
	q.entries[last] = entry[T]{}
	q.entries = q.entries[:last]
	if last > 0 {
		q.down(0)
	}
	return e.item, e.seq, true
}

// Len counts the entries, stale ones included.
func (q *Queue[T]) Len() int { return len(q.entries) }

func (q *Queue[T]) less(i, j int) bool {
	a, b := &q.entries[i], &q.entries[j]
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
