package scheduler

import (
	"fmt"
	"maps"
	"slices"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// maxShuffleRestarts bounds how often one shuffle starts again before its
// tasks fail: a shuffle that keeps losing workers is not going to finish.
const maxShuffleRestarts = 5

// shuffle is the scheduler's view of a peer-to-peer shuffle (graph.Shuffle):
// its tasks, and its current run, which fixes the workers that assemble the
// outputs. The run is made when the first transfer or unpack is assigned,
// and made again, under a new number, when one of its workers is lost or a
// transfer cannot reach one: everything not yet assembled starts over, while
// the outputs already assembled (held by live workers) stay.
type shuffle struct {
	id        string
	transfers []*task
	barrier   *task
	unpacks   []*task
	run       *protocol.ShuffleRun // nil until needed
	done      map[int]bool         // outputs assembled in the current run: their pieces are gone
	restarts  int
}

// addShuffleTask files t, a new task of a shuffle, under its shuffle.
func (s *State) addShuffleTask(t *task) {
	spec := t.spec.Shuffle
	sh := s.shuffles[spec.ID]
	if sh == nil {
		sh = &shuffle{id: spec.ID, done: map[int]bool{}}
		s.shuffles[spec.ID] = sh
	}
	switch spec.Role {
	case graph.Transfer:
		sh.transfers = append(sh.transfers, t)
	case graph.Barrier:
		sh.barrier = t
	case graph.Unpack:
		sh.unpacks = append(sh.unpacks, t)
	}
}

// shuffleOf returns the shuffle t belongs to, or nil.
func (s *State) shuffleOf(t *task) *shuffle {
	if t.spec == nil || t.spec.Shuffle == nil {
		return nil
	}
	return s.shuffles[t.spec.Shuffle.ID]
}

// shuffleRun returns sh's current run, making one over the workers that can
// take work now, in the order they joined.
func (s *State) shuffleRun(sh *shuffle) *protocol.ShuffleRun {
	if sh.run != nil {
		return sh.run
	}
	var ids []protocol.WorkerID
	for _, w := range s.order {
		if w.available() {
			ids = append(ids, w.id)
		}
	}
	if len(ids) == 0 { // every worker paused or retiring: they still assemble
		for _, w := range s.order {
			ids = append(ids, w.id)
		}
	}
	s.shuffleRuns++
	sh.run = &protocol.ShuffleRun{ID: sh.id, Run: s.shuffleRuns, Workers: ids}
	clear(sh.done)
	return sh.run
}

// unpackOwner is the worker that must assemble unpack t's output: its
// shuffle's run says which; nil if that worker is gone.
func (s *State) unpackOwner(t *task) *worker {
	sh := s.shuffleOf(t)
	if sh == nil || len(s.order) == 0 {
		return nil
	}
	return s.workers[s.shuffleRun(sh).Owner(t.spec.Shuffle.Part)]
}

// readyUnpack reports whether unpack t can run in its shuffle's current
// run. If its output was assembled once already in that run, the pieces
// are gone: the shuffle starts again, t waits for its barrier once more,
// and readyUnpack reports false.
func (s *State) readyUnpack(t *task) bool {
	sh := s.shuffleOf(t)
	if sh == nil || !sh.done[t.spec.Shuffle.Part] {
		return true
	}
	s.restartShuffle(sh, fmt.Sprintf("output %d is needed again after it was assembled", t.spec.Shuffle.Part))
	return false
}

// unpackDone notes that unpack t assembled its output.
func (s *State) unpackDone(t *task) {
	if sh := s.shuffleOf(t); sh != nil && t.spec.Shuffle.Role == graph.Unpack {
		sh.done[t.spec.Shuffle.Part] = true
	}
}

// shufflesLost restarts the shuffles whose run counts on worker w.
func (s *State) shufflesLost(w protocol.WorkerID) {
	for _, id := range slices.Sorted(maps.Keys(s.shuffles)) {
		sh := s.shuffles[id]
		if sh.run != nil && slices.Contains(sh.run.Workers, w) {
			s.restartShuffle(sh, fmt.Sprintf("worker %s, which assembles some of its outputs, was lost", w))
		}
	}
}

// restartShuffle starts sh again: its transfers and barrier run again
// under a new run, and the unpacks not yet assembled wait for them; the
// workers drop the pieces of the old run. After maxShuffleRestarts, its
// tasks fail instead, with why.
func (s *State) restartShuffle(sh *shuffle, why string) {
	if sh.run == nil {
		return
	}
	s.dropRun(sh)
	sh.restarts++
	for _, t := range append(slices.Clone(sh.transfers), sh.barrier) {
		switch t.state {
		case Memory:
			for _, w := range t.whoHas {
				w.nbytes -= t.nbytes
				s.free(w.id, t.key)
			}
			t.whoHas = nil
			s.lose(t)
		case Processing, NoWorker, Queued:
			s.stop(t)
			s.setState(t, Released)
			s.recheck = append(s.recheck, t)
		}
	}
	for _, t := range sh.unpacks {
		if t.state == Processing || t.state == NoWorker {
			s.stop(t)
			s.setState(t, Released)
			s.recheck = append(s.recheck, t)
		}
	}
	if sh.restarts > maxShuffleRestarts {
		s.fail(sh.barrier, &protocol.TaskError{Kind: protocol.Failed, Key: sh.barrier.key,
			Message: fmt.Sprintf("shuffle %s started again %d times and gave up; the last time because %s",
				sh.id, maxShuffleRestarts, why)})
	}
}

// shuffleOver drops the pieces of sh's run from its workers, once nothing
// needs the barrier any more: no output will be assembled again.
func (s *State) shuffleOver(t *task) {
	sh := s.shuffleOf(t)
	if sh == nil || sh.barrier != t || sh.run == nil {
		return
	}
	s.dropRun(sh)
}

// dropRun has the live workers of sh's current run drop its pieces, those
// that come late included, and forgets the run.
func (s *State) dropRun(sh *shuffle) {
	if sh.run == nil {
		return
	}
	for _, id := range sh.run.Workers {
		if s.workers[id] != nil {
			s.send(id, &protocol.DropShuffle{ID: sh.id, Run: sh.run.Run})
		}
	}
	sh.run = nil
}

// forgetShuffleTask removes a forgotten task from its shuffle, and the
// shuffle once it has no tasks left.
func (s *State) forgetShuffleTask(t *task) {
	sh := s.shuffleOf(t)
	if sh == nil {
		return
	}
	sh.transfers = slices.DeleteFunc(sh.transfers, func(x *task) bool { return x == t })
	sh.unpacks = slices.DeleteFunc(sh.unpacks, func(x *task) bool { return x == t })
	if sh.barrier == t {
		sh.barrier = nil
	}
	if len(sh.transfers) == 0 && len(sh.unpacks) == 0 && sh.barrier == nil {
		s.dropRun(sh) // forgotten before it was over: transfers may still push
		delete(s.shuffles, sh.id)
	}
}
