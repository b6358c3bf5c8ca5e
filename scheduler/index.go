package scheduler

import (
	"hash/maphash"
	"iter"
	"maps"

	"github.com/duskdata/dusk/graph"
)

// taskIndex finds tasks by key. It maps the key's 64-bit hash to the task,
// an entry of two words with one pointer where a map by key has three words
// and two pointers (the key's string and the task): the collector visits
// every pointer at each collection, and with a million tasks waiting that
// was most of the scheduler's time. A key whose hash another key already
// has goes to a map by key, empty but for such rare clashes.
type taskIndex struct {
	hash   func(graph.Key) uint64 // maphash; tests make keys clash
	byHash map[uint64]*task
	clash  map[graph.Key]*task
	room   int // the tasks byHash was made for: a map never shrinks
}

func newTaskIndex() taskIndex {
	seed := maphash.MakeSeed()
	return taskIndex{hash: func(k graph.Key) uint64 { return maphash.String(seed, string(k)) },
		byHash: map[uint64]*task{}, clash: map[graph.Key]*task{}}
}

// get is the task of key k, or nil.
func (x *taskIndex) get(k graph.Key) *task {
	if t := x.byHash[x.hash(k)]; t != nil && t.key() == k {
		return t
	}
	if len(x.clash) == 0 {
		return nil
	}
	return x.clash[k]
}

// put files t, which no task of its key is filed before.
func (x *taskIndex) put(t *task) {
	h := x.hash(t.key())
	if _, taken := x.byHash[h]; taken {
		x.clash[t.key()] = t
		return
	}
	x.byHash[h] = t
}

// delete unfiles t.
func (x *taskIndex) delete(t *task) {
	k := t.key()
	h := x.hash(k)
	if x.byHash[h] != t {
		delete(x.clash, k)
		return
	}
	delete(x.byHash, h)
	if len(x.byHash) == 0 && x.room > keptRoom {
		x.byHash, x.room = map[uint64]*task{}, 0 // a large graph's room goes with it
	}
	for ck, c := range x.clash { // one that clashed with t takes its place
		if x.hash(ck) == h {
			delete(x.clash, ck)
			x.byHash[h] = c
			break
		}
	}
}

func (x *taskIndex) len() int { return len(x.byHash) + len(x.clash) }

// all yields every task, in no order.
func (x *taskIndex) all() iter.Seq[*task] {
	return func(yield func(*task) bool) {
		for _, t := range x.byHash {
			if !yield(t) {
				return
			}
		}
		for _, t := range x.clash {
			if !yield(t) {
				return
			}
		}
	}
}

// reserve makes room for n more tasks at once: a graph larger than what
// is held would otherwise grow the map by doublings, each a rehash of
// every task (a tenth of the scheduler's time for a million).
func (x *taskIndex) reserve(n int) {
	if n <= len(x.byHash) {
		return
	}
	x.room = len(x.byHash) + n
	m := make(map[uint64]*task, x.room)
	maps.Copy(m, x.byHash)
	x.byHash = m
}

// keptRoom is the most room an empty index keeps.
const keptRoom = 4096
