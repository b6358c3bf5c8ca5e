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
// outputs. The run is made when the first transfer or unpack is assigned.
// When one of its workers is lost, the next run gives only that worker's
// outputs to the others: the transfers run again but push only those, and
// the pieces of the other outputs stay where they are (moveOutputs). When
// pieces are gone otherwise (a transfer could not reach a worker, an
// output is needed again after it was assembled), the shuffle starts over
// (restartShuffle). Either way the outputs already assembled, held by live
// workers, stay.
type shuffle struct {
	id        string
	transfers []*task
	barrier   *task
	unpacks   []*task
	run       *protocol.ShuffleRun // nil until needed
	done      map[int]bool         // outputs assembled under their current run: their pieces are gone
	pushed    map[*task]uint64     // transfers that delivered their pieces: the run they did it in
	restarts  int
}

// addShuffleTask files t, a new task of a shuffle, under its shuffle.
func (s *State) addShuffleTask(t *task) {
	spec := t.shuffle()
	sh := s.shuffles[spec.ID]
	if sh == nil {
		sh = &shuffle{id: spec.ID, done: map[int]bool{}, pushed: map[*task]uint64{}}
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
	if t.shuffle() == nil {
		return nil
	}
	return s.shuffles[t.shuffle().ID]
}

// shuffleRun returns sh's current run, making one over the workers that can
// take work now, in the order they joined.
func (s *State) shuffleRun(sh *shuffle) *protocol.ShuffleRun {
	if sh.run != nil {
		return sh.run
	}
	// Its outputs go to workers whose binary runs its unpacks (a pool of
	// several binaries: a bag grouped by a registered function).
	can := func(w *worker) bool { return len(sh.unpacks) == 0 || s.ops.runs(w.ops, sh.unpacks[0].spec) }
	var ids []protocol.WorkerID
	for _, w := range s.order {
		if w.available() && can(w) {
			ids = append(ids, w.id)
		}
	}
	for _, all := range []bool{false, true} {
		if len(ids) > 0 {
			break
		}
		for _, w := range s.order { // every such worker paused or retiring: they still assemble
			if all || can(w) {
				ids = append(ids, w.id)
			}
		}
	}
	s.shuffleRuns++
	sh.run = &protocol.ShuffleRun{ID: sh.id, Run: s.shuffleRuns, Workers: ids, Gens: make([]uint64, len(ids))}
	for i := range sh.run.Gens {
		sh.run.Gens[i] = sh.run.Run
	}
	clear(sh.done)
	clear(sh.pushed)
	return sh.run
}

// runFor is the run to send with shuffle task t: for a transfer that
// delivered its pieces before, one that says so (ShuffleRun.Since).
func (s *State) runFor(sh *shuffle, t *task) *protocol.ShuffleRun {
	run := s.shuffleRun(sh)
	if since := sh.pushed[t]; since > 0 {
		r := *run
		r.Since = since
		return &r
	}
	return run
}

// unpackOwner is the worker that must assemble unpack t's output: its
// shuffle's run says which; nil if that worker is gone.
func (s *State) unpackOwner(t *task) *worker {
	sh := s.shuffleOf(t)
	if sh == nil || len(s.order) == 0 {
		return nil
	}
	return s.workers[s.shuffleRun(sh).Owner(t.shuffle().Part)]
}

// readyUnpack reports whether unpack t can run in its shuffle's current
// run. If its output was assembled once already in that run, the pieces
// are gone: the shuffle starts again, t waits for its barrier once more,
// and readyUnpack reports false.
func (s *State) readyUnpack(t *task) bool {
	sh := s.shuffleOf(t)
	if sh == nil || !sh.done[t.shuffle().Part] {
		return true
	}
	s.restartShuffle(sh, fmt.Sprintf("output %d is needed again after it was assembled", t.shuffle().Part))
	return false
}

// shuffleTaskDone notes what a shuffle task that finished did: an unpack
// assembled its output, a transfer delivered its pieces in the current run.
func (s *State) shuffleTaskDone(t *task) {
	sh := s.shuffleOf(t)
	if sh == nil || sh.run == nil {
		return
	}
	switch t.shuffle().Role {
	case graph.Unpack:
		sh.done[t.shuffle().Part] = true
	case graph.Transfer:
		sh.pushed[t] = sh.run.Run
	}
}

// shufflesLost moves the outputs worker w assembles in the shuffles whose
// run counts on it to the other workers of the run, and says how many.
func (s *State) shufflesLost(w protocol.WorkerID) []ShuffleLoss {
	var losses []ShuffleLoss
	for _, id := range slices.Sorted(maps.Keys(s.shuffles)) {
		sh := s.shuffles[id]
		if sh.run != nil && slices.Contains(sh.run.Workers, w) {
			losses = append(losses, s.moveOutputs(sh, w))
		}
	}
	return losses
}

// moveOutputs gives the outputs of sh that lost worker assembles to the
// other workers of its run, under a new run: the slot of lost is spread
// over them, and so is every slot spread before (their owners change as
// the workers left do). The outputs that keep their worker keep their
// pieces. The transfers and the barrier run again, and the transfers that
// delivered before push only the moved outputs; unpacks not yet assembled
// wait for the barrier again. With no worker of the run left, the shuffle
// starts over.
func (s *State) moveOutputs(sh *shuffle, lost protocol.WorkerID) ShuffleLoss {
	why := fmt.Sprintf("worker %s, which assembles some of its outputs, was lost", lost)
	outputs := sh.outputs()
	old := sh.run
	left := 0
	for _, id := range old.Workers {
		if id != "" && id != lost && s.workers[id] != nil {
			left++
		}
	}
	if left == 0 {
		s.restartShuffle(sh, why)
		return ShuffleLoss{ID: sh.id, Moved: outputs, Outputs: outputs}
	}
	s.shuffleRuns++
	run := &protocol.ShuffleRun{ID: sh.id, Run: s.shuffleRuns,
		Workers: slices.Clone(old.Workers), Gens: slices.Clone(old.Gens)}
	for i, id := range run.Workers {
		if id == lost || id == "" {
			run.Workers[i], run.Gens[i] = "", run.Run
		}
	}
	for part := range sh.done {
		if run.Gen(part) == run.Run {
			delete(sh.done, part)
		}
	}
	sh.run = run
	s.rerunShuffle(sh, why)
	moved := 0
	for part := range outputs {
		if run.Gen(part) == run.Run {
			moved++
		}
	}
	return ShuffleLoss{ID: sh.id, Moved: moved, Outputs: outputs}
}

// outputs is how many output partitions sh makes.
func (sh *shuffle) outputs() int {
	for _, ts := range [][]*task{sh.transfers, sh.unpacks, {sh.barrier}} {
		if len(ts) > 0 && ts[0] != nil {
			return ts[0].shuffle().Outputs
		}
	}
	return 0
}

// restartShuffle starts sh over: the workers drop the pieces of its run,
// its transfers and barrier run again under a new one, and the unpacks not
// yet assembled wait for them.
func (s *State) restartShuffle(sh *shuffle, why string) {
	if sh.run == nil {
		return
	}
	s.dropRun(sh)
	s.rerunShuffle(sh, why)
}

// rerunShuffle runs sh's transfers and barrier again, and has the unpacks
// not yet assembled wait for them. After maxShuffleRestarts, its tasks fail
// instead, with why.
func (s *State) rerunShuffle(sh *shuffle, why string) {
	sh.restarts++
	for _, t := range append(slices.Clone(sh.transfers), sh.barrier) {
		switch t.state {
		case Memory:
			for _, w := range t.whoHas {
				w.nbytes -= t.nbytes
				s.free(w.id, t.key())
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
		s.fail(sh.barrier, &protocol.TaskError{Kind: protocol.Failed, Key: sh.barrier.key(),
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
	delete(sh.pushed, t)
	if sh.barrier == t {
		sh.barrier = nil
	}
	if len(sh.transfers) == 0 && len(sh.unpacks) == 0 && sh.barrier == nil {
		s.dropRun(sh) // forgotten before it was over: transfers may still push
		delete(s.shuffles, sh.id)
	}
}
