package worker

import (
	"slices"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/prioq"
	"github.com/duskdata/dusk/internal/protocol"
)

// fetchQueues files the inputs to fetch under each peer that holds them,
// as Dask's data_needed per worker: a transfer takes from an idle peer's
// own queue in priority order, rather than passing over every input whose
// holders are all busy (with one busy peer, that was every input, at each
// step). Entries go stale lazily: one counts while its task is in Fetch
// and the peer is still among its holders, so that leaving Fetch, or a
// holder, needs no bookkeeping here; a new priority files it again.
type fetchQueues struct {
	peers []protocol.WorkerID // in order of first use, for deterministic ties
	by    map[protocol.WorkerID]*prioq.Queue[*task]
}

// add files t under each of holders.
func (f *fetchQueues) add(t *task, holders []protocol.WorkerID) {
	for _, w := range holders {
		q := f.by[w]
		if q == nil {
			if f.by == nil {
				f.by = map[protocol.WorkerID]*prioq.Queue[*task]{}
			}
			q = &prioq.Queue[*task]{}
			f.by[w] = q
			f.peers = append(f.peers, w)
		}
		q.Push(t, t.prio)
	}
}

// queueFetch files t, now in Fetch, under its holders.
func (s *State) queueFetch(t *task) { s.byPeer.add(t, t.whoHas) }

// nextFrom returns the first input still to fetch from peer w, dropping
// stale entries; a queue left empty is forgotten.
func (s *State) nextFrom(w protocol.WorkerID) *task {
	q := s.byPeer.by[w]
	for {
		t, _, ok := q.Peek()
		if !ok {
			delete(s.byPeer.by, w)
			s.byPeer.peers = slices.DeleteFunc(s.byPeer.peers, func(x protocol.WorkerID) bool { return x == w })
			return nil
		}
		if s.tasks[t.key] == t && t.state == Fetch && slices.Contains(t.whoHas, w) {
			return t
		}
		q.Pop()
	}
}

// startFetches asks peers for inputs in priority order, batching the keys
// one peer holds, one fetch per peer and at most Transfers at once.
func (s *State) startFetches() {
	for len(s.inFlight) < s.cfg.Transfers {
		// The idle peer that holds the most urgent input.
		var from protocol.WorkerID
		var first *task
		// Backwards, as nextFrom may drop the peer it looks at; ties go to
		// the peer used first.
		for i := len(s.byPeer.peers) - 1; i >= 0; i-- {
			w := s.byPeer.peers[i]
			if _, busy := s.inFlight[w]; busy || w == s.cfg.ID {
				continue
			}
			if t := s.nextFrom(w); t != nil && (first == nil || !first.prio.Less(t.prio)) {
				from, first = w, t
			}
		}
		if first == nil || !s.admitFetch(first.nbytes) {
			return
		}
		most := s.cfg.TransferBatch
		if s.cfg.MemoryLimit > 0 {
			most = min(most, max(s.room(), first.nbytes)) // what admission let in
		}
		var batch []*task
		var size int64
		for t := first; t != nil && (len(batch) == 0 || size+t.nbytes <= most); t = s.nextFrom(from) {
			t.state = Flight
			batch = append(batch, t)
			size += t.nbytes
		}
		s.inFlight[from] = batch
		s.mem.fetching(from, size)
		keys := make([]graph.Key, len(batch))
		for i, b := range batch {
			keys[i] = b.key
		}
		s.out = append(s.out, Instruction{Kind: Gather, From: from, Keys: keys})
	}
}
