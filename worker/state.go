package worker

import (
	"slices"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/prioq"
	"github.com/duskdata/dusk/internal/protocol"
)

// TaskState is where a task or a piece of data stands on this worker.
type TaskState uint8

const (
	// Waiting: to run here once its inputs arrive.
	Waiting TaskState = iota
	// Fetch: an input held by peers, not yet asked for.
	Fetch
	// Flight: an input being fetched.
	Flight
	// Ready: inputs here, waiting for a thread or resources.
	Ready
	// Executing: running on a thread.
	Executing
	// Memory: the result is in the store.
	Memory
	// Error: the task failed; the scheduler has been told.
	Error
)

var stateNames = [...]string{"waiting", "fetch", "flight", "ready", "executing", "memory", "error"}

func (s TaskState) String() string { return stateNames[s] }

// Config describes a worker.
type Config struct {
	ID       protocol.WorkerID
	NThreads int
	// Resources the worker offers beyond its threads (GPU=1, memory=...).
	Resources graph.Resources
	// TransferBatch caps the bytes asked of one peer at once. Default 64 MiB.
	TransferBatch int64
	// Transfers caps the fetches in flight at once, one per peer. Default 4.
	Transfers int
	// MemoryLimit is the memory the worker may use, in bytes; 0: no limit.
	MemoryLimit int64
	// Fractions of MemoryLimit at which the worker spills and pauses.
	Fractions Fractions
}

// Instruction is what the state machine asks its driver to do: Kind says
// which, and which fields matter. It is a plain struct, not an interface,
// so that a task's instructions cost no allocation.
type Instruction struct {
	Kind    InstructionKind
	Task    *graph.Task          // Execute
	From    protocol.WorkerID    // Gather
	Keys    []graph.Key          // Gather, Drop
	Msg     protocol.Msg         // Send
	Bytes   int64                // Spill
	Shuffle *protocol.ShuffleRun // Execute: the run of a shuffle task
	// Pieces are an unpack's (Execute): the store keys of the pieces of
	// its output, per side in order of source.
	Pieces [][]graph.Key
	Merge  *MergeJob // Merge
}

// InstructionKind says what an Instruction asks for.
type InstructionKind uint8

const (
	// Execute runs Task, whose inputs are in the store.
	Execute InstructionKind = iota
	// Gather fetches Keys from the peer From and reports with GatherDone.
	Gather
	// Drop removes Keys from the store.
	Drop
	// Send sends Msg to the scheduler.
	Send
	// Spill moves results to disk until the store holds at most Bytes in memory.
	Spill
	// Merge combines pieces of a shuffle's output and reports with MergeDone.
	Merge
	// Prefetch has the store start reading Task's inputs on disk, as it
	// runs next: the disk reads while the threads compute. A hint; it
	// reports nothing.
	Prefetch
)

type task struct {
	key   graph.Key
	spec  *graph.Task // nil for data fetched for local tasks only
	prio  protocol.Priority
	state TaskState

	deps       []*task
	dependents []*task // local tasks that still need this result
	waitingOn  int

	whoHas    []protocol.WorkerID // holders to fetch from
	failed    []protocol.WorkerID // holders that did not have it
	nbytes    int64
	run       uint64 // the scheduler's number for the current assignment
	shuffle   *protocol.ShuffleRun
	need      int64  // executing: the memory it was expected to add (admission)
	cancelled bool   // freed by the scheduler while executing or in flight
	rerun     bool   // executing a transfer for a shuffle run since replaced: run again
	keep      bool   // a copy the scheduler asked for: kept until freed
	readySeq  uint64 // the ticket of its live entry in the ready queue
	prefetch  bool   // ready: its inputs on disk were asked to be read ahead
}

// State is the worker's core. It is not safe for concurrent use.
type State struct {
	cfg       Config
	tasks     map[graph.Key]*task
	ready     prioq.Queue[*task] // no special resources: need one thread
	special   []*task            // ready tasks with resources, by priority
	byPeer    fetchQueues        // inputs to fetch, filed under each holder by priority
	free      graph.Resources    // what is not in use: "cpu" is threads
	inFlight  map[protocol.WorkerID][]*task
	executing int
	out       []Instruction

	paused      bool // memory is high: start nothing
	pauseReason string
	mem         admission
	sh          shuffles
}

// New returns an empty worker core.
func New(cfg Config) *State {
	if cfg.NThreads <= 0 {
		cfg.NThreads = 1
	}
	if cfg.TransferBatch <= 0 {
		cfg.TransferBatch = 64 << 20
	}
	if cfg.Transfers <= 0 {
		cfg.Transfers = 4
	}
	free := graph.Resources{}
	for n, v := range cfg.Resources {
		free[n] = v
	}
	free["cpu"] = float64(cfg.NThreads)
	cfg.Fractions = cfg.Fractions.WithDefaults()
	return &State{
		cfg:      cfg,
		tasks:    make(map[graph.Key]*task),
		free:     free,
		inFlight: make(map[protocol.WorkerID][]*task),
	}
}

// Outbox returns the instructions produced since the last call and forgets them.
func (s *State) Outbox() []Instruction {
	out := s.out
	s.out = nil
	return out
}

// ComputeTask takes a task from the scheduler.
func (s *State) ComputeTask(m *protocol.ComputeTask) {
	defer s.schedule()
	spec, err := m.Spec.Task()
	if err != nil { // specs are checked where they arrive: a bug
		key := m.Spec.Key()
		s.send(&protocol.TaskErred{Key: key, Run: m.Run, Err: &protocol.TaskError{
			Kind: protocol.Failed, Key: key, Worker: s.cfg.ID, Message: err.Error()}})
		return
	}
	t := s.tasks[spec.Key]
	if t != nil {
		t.cancelled = false
		t.prio = m.Priority
		t.run = m.Run
		if t.state == Executing && isTransfer(t) && m.Shuffle != nil && t.shuffle.Run != m.Shuffle.Run {
			// Its pieces go to the old run's workers, which drop them.
			t.rerun = true
		}
		t.shuffle = m.Shuffle
		switch t.state {
		case Memory:
			// Fetched earlier as an input: it is already here, and now
			// this worker's own result, not a copy to drop.
			t.spec = spec
			s.send(&protocol.TaskFinished{Key: t.key, Run: t.run, Nbytes: t.nbytes})
			return
		case Fetch: // its queue entries go stale
		case Flight:
			t.spec = spec // reported as finished when it lands
			return
		default:
			return // already waiting, ready or running
		}
	} else {
		t = &task{key: spec.Key, prio: m.Priority, run: m.Run, shuffle: m.Shuffle}
		s.tasks[t.key] = t
	}
	t.spec = spec
	t.state = Waiting
	t.waitingOn = 0
	for _, dep := range m.Deps {
		d := s.tasks[dep.Key]
		if d == nil {
			d = &task{key: dep.Key, prio: m.Priority, state: Fetch, nbytes: dep.Nbytes}
			s.tasks[d.key] = d // queued below, with its holders
		}
		known := len(d.whoHas)
		if d.state != Memory {
			// Where to fetch it from, should it have to be fetched.
			d.whoHas = mergeHolders(d.whoHas, dep.WhoHas, d.failed, s.cfg.ID)
		}
		switch {
		case d.state == Flight:
			d.cancelled = false // needed again
		case d.state == Fetch && m.Priority.Less(d.prio):
			d.prio = m.Priority
			s.byPeer.add(d, d.whoHas) // filed again at its new priority
		case d.state == Fetch:
			s.byPeer.add(d, d.whoHas[known:])
		}
		t.deps = append(t.deps, d)
		d.dependents = append(d.dependents, t)
		if d.state != Memory {
			t.waitingOn++
		}
	}
	if why := s.tooLarge(t); why != "" {
		s.refuse(t, protocol.Failed, why)
		return
	}
	if t.waitingOn == 0 {
		s.makeReady(t)
	}
}

// refuse fails t without running it, and lets go of its inputs.
func (s *State) refuse(t *task, kind protocol.ErrorKind, why string) {
	t.state = Error
	s.send(&protocol.TaskErred{Key: t.key, Run: t.run, Err: &protocol.TaskError{
		Kind: kind, Key: t.key, Worker: s.cfg.ID, Message: why}})
	s.doneWithInputs(t)
}

// StealRequest gives up a task that has not started, so that the scheduler
// can move it to an idle worker; a task that runs or ran stays.
func (s *State) StealRequest(m *protocol.StealRequest) {
	t := s.tasks[m.Key]
	given := t != nil && t.spec != nil && (t.state == Waiting || t.state == Ready)
	if given {
		s.forget(t)
	}
	s.send(&protocol.StealResponse{Key: m.Key, Given: given})
	s.schedule()
}

// Replicate fetches copies of keys from a peer and keeps them until freed:
// the scheduler moves data off a worker that is leaving.
func (s *State) Replicate(m *protocol.Replicate) {
	var have protocol.AddKeys
	for _, k := range m.Keys {
		t := s.tasks[k]
		switch {
		case t == nil:
			t = &task{key: k, state: Fetch, keep: true, whoHas: []protocol.WorkerID{m.From}}
			s.tasks[k] = t
			s.queueFetch(t)
		case t.state == Memory:
			t.keep = true
			have.Keys = append(have.Keys, k)
			have.Nbytes = append(have.Nbytes, t.nbytes)
		default:
			t.keep = true
			t.cancelled = false
			known := len(t.whoHas)
			t.whoHas = mergeHolders(t.whoHas, []protocol.WorkerID{m.From}, t.failed, s.cfg.ID)
			if t.state == Fetch {
				s.byPeer.add(t, t.whoHas[known:])
			}
		}
	}
	if len(have.Keys) > 0 {
		s.send(&have)
	}
	s.schedule()
}

// FreeKeys forgets tasks and drops results, as the scheduler asks.
func (s *State) FreeKeys(m *protocol.FreeKeys) {
	for _, k := range m.Keys {
		t := s.tasks[k]
		if t == nil {
			continue
		}
		t.keep = false
		switch t.state {
		case Executing:
			t.cancelled = true // forgotten when it ends
		case Flight:
			t.cancelled = len(t.dependents) == 0
			t.spec = nil
		case Fetch, Memory:
			if len(t.dependents) > 0 {
				t.spec = nil // still an input to local tasks
				continue
			}
			s.forget(t)
		default:
			s.forget(t)
		}
	}
	s.schedule()
}

// Ran is what the driver measured of a task it ran.
type Ran struct {
	Nbytes int64         // the result's size, as the store counts it
	Start  time.Time     // when it started, by the driver's clock (for the task stream)
	Took   time.Duration // how long it ran
	Grew   int64         // how much process memory grew while it ran; 0 where not measured
	Thread int           // which of the worker's threads ran it
}

// ExecuteDone records a task's result, which the driver has put in the
// store, with what the driver measured of its run.
func (s *State) ExecuteDone(k graph.Key, r Ran) {
	t := s.tasks[k]
	if t == nil || t.state != Executing {
		return
	}
	nbytes := r.Nbytes
	s.mem.learn(t.key.Prefix(), max(r.Grew, nbytes))
	s.mem.process += r.Grew // until a reading says what of it is left
	s.release(t)
	// An unpack the scheduler let go of (its shuffle started again while
	// it ran) gives its pieces back: the restart may have kept its output.
	s.unpackEnded(t, !t.cancelled)
	if s.runAgain(t, true) {
		return
	}
	if t.cancelled {
		if len(t.dependents) == 0 {
			s.out = append(s.out, Instruction{Kind: Drop, Keys: []graph.Key{k}})
			s.forget(t)
			s.schedule()
			return
		}
		// Freed by the scheduler, but an input of tasks sent since: keep
		// the result as a copy, and say so.
		t.cancelled, t.spec, t.nbytes = false, nil, nbytes
		s.toMemory(t)
		s.send(&protocol.AddKeys{Keys: []graph.Key{k}, Nbytes: []int64{nbytes}})
		s.doneWithInputs(t)
		s.schedule()
		return
	}
	t.nbytes = nbytes
	s.toMemory(t)
	s.send(&protocol.TaskFinished{Key: k, Run: t.run, Nbytes: nbytes, Duration: r.Took, Start: r.Start, Thread: r.Thread})
	s.doneWithInputs(t)
	s.schedule()
}

// runAgain makes t, which ran for a shuffle run since replaced, ready to
// run for the current one, unless the scheduler freed it meanwhile; the
// result it stored (stored) is dropped.
func (s *State) runAgain(t *task, stored bool) bool {
	if !t.rerun {
		return false
	}
	t.rerun = false
	if t.cancelled {
		return false
	}
	if stored {
		s.out = append(s.out, Instruction{Kind: Drop, Keys: []graph.Key{t.key}})
	}
	s.makeReady(t)
	s.schedule()
	return true
}

// ExecuteFailed records a task whose operation failed.
func (s *State) ExecuteFailed(k graph.Key, err *protocol.TaskError) {
	t := s.tasks[k]
	if t == nil || t.state != Executing {
		return
	}
	s.release(t)
	s.unpackEnded(t, false)
	if s.runAgain(t, false) {
		return
	}
	if t.cancelled {
		if len(t.dependents) > 0 {
			// An input of tasks sent since: fetch it from where the
			// scheduler said it is, or tell it there is nowhere.
			t.cancelled, t.spec = false, nil
			s.doneWithInputs(t)
			t.state = Fetch
			s.queueFetch(t)
			if len(t.whoHas) == 0 {
				s.send(&protocol.MissingData{Key: k, From: s.cfg.ID})
			}
		} else {
			s.forget(t)
		}
		s.schedule()
		return
	}
	t.state = Error
	s.send(&protocol.TaskErred{Key: k, Run: t.run, Err: err})
	s.doneWithInputs(t)
	s.schedule()
}

// GatherDone records a fetch from a peer: got are in the store now with their
// sizes; the peer did not have the others it was asked for, or could not be
// reached when unreachable is set.
func (s *State) GatherDone(from protocol.WorkerID, got map[graph.Key]int64, unreachable bool) {
	asked := s.inFlight[from]
	delete(s.inFlight, from)
	s.mem.fetched(from)
	var added protocol.AddKeys
	var drop []graph.Key
	for _, t := range asked {
		if s.tasks[t.key] != t || t.state != Flight {
			continue
		}
		n, ok := got[t.key]
		if !ok {
			t.failed = append(t.failed, from)
			t.whoHas = slices.DeleteFunc(t.whoHas, func(x protocol.WorkerID) bool { return x == from })
			t.state = Fetch
			if t.cancelled {
				s.forget(t)
				continue
			}
			s.queueFetch(t)
			if len(t.whoHas) == 0 {
				// Every holder failed: the scheduler takes it from here.
				for _, f := range t.failed {
					s.send(&protocol.MissingData{Key: t.key, From: f})
				}
				t.failed = nil
			}
			continue
		}
		t.nbytes = n
		if t.cancelled {
			drop = append(drop, t.key)
			s.forget(t)
			continue
		}
		s.toMemory(t)
		if t.spec != nil {
			s.send(&protocol.TaskFinished{Key: t.key, Run: t.run, Nbytes: n})
		} else {
			added.Keys = append(added.Keys, t.key)
			added.Nbytes = append(added.Nbytes, n)
		}
	}
	if len(added.Keys) > 0 {
		s.send(&added)
	}
	if len(drop) > 0 {
		s.out = append(s.out, Instruction{Kind: Drop, Keys: drop})
	}
	s.schedule()
}

// toMemory marks t's result as held and wakes the tasks waiting for it.
func (s *State) toMemory(t *task) {
	t.state = Memory
	s.held(t.nbytes)
	for _, d := range t.dependents {
		if d.state == Waiting {
			d.waitingOn--
			if d.waitingOn == 0 {
				s.makeReady(d)
			}
		}
	}
}

// doneWithInputs lets go of t's inputs; copies fetched only for local tasks
// that no task needs any more are dropped.
func (s *State) doneWithInputs(t *task) {
	for _, d := range t.deps {
		d.dependents = slices.DeleteFunc(d.dependents, func(x *task) bool { return x == t })
		if len(d.dependents) == 0 && d.spec == nil {
			s.releaseCopy(d)
		}
	}
	t.deps = nil
}

// releaseCopy drops data this worker only fetched, or stops fetching it,
// unless the scheduler asked for the copy.
func (s *State) releaseCopy(d *task) {
	if d.keep {
		return
	}
	switch d.state {
	case Memory:
		s.mem.managed -= d.nbytes
		s.out = append(s.out, Instruction{Kind: Drop, Keys: []graph.Key{d.key}})
		s.send(&protocol.ReleasedData{Keys: []graph.Key{d.key}})
		delete(s.tasks, d.key)
	case Fetch:
		delete(s.tasks, d.key)
	case Flight:
		d.cancelled = true
	}
}

// forget removes t, dropping its result if held, and lets go of its inputs.
func (s *State) forget(t *task) {
	s.unparkUnpack(t)
	switch t.state {
	case Ready:
		if len(t.spec.Resources) > 0 {
			s.removeSpecial(t)
		} // a ready-queue entry goes stale when the task leaves
	case Memory:
		s.mem.managed -= t.nbytes
		s.out = append(s.out, Instruction{Kind: Drop, Keys: []graph.Key{t.key}})
	}
	delete(s.tasks, t.key)
	s.doneWithInputs(t)
}

func (s *State) makeReady(t *task) {
	t.state = Ready
	if len(t.spec.Resources) == 0 {
		t.readySeq = s.ready.Push(t, t.prio)
		return
	}
	i := 0
	for i < len(s.special) && !t.prio.Less(s.special[i].prio) {
		i++
	}
	s.special = append(s.special, nil)
	copy(s.special[i+1:], s.special[i:])
	s.special[i] = t
}

// schedule starts what can start: ready tasks in priority order while a
// thread and their resources are free, and fetches while transfers are;
// nothing while paused.
func (s *State) schedule() {
	if s.paused {
		return
	}
	for {
		var t *task
		if s.free["cpu"] >= 1 {
			t = s.readyHead()
		}
		for _, c := range s.special {
			if t != nil && !c.prio.Less(t.prio) {
				break
			}
			if s.fits(c.spec.Resources) {
				t = c
				break
			}
		}
		if t == nil {
			break
		}
		need, fits := s.admit(t)
		if !fits {
			break // it waits for memory, which it has asked to be spilled
		}
		if len(t.spec.Resources) == 0 {
			s.ready.Pop()
		} else {
			s.removeSpecial(t)
		}
		if why := s.tooLarge(t); why != "" {
			s.refuse(t, protocol.Failed, why)
			continue
		}
		if s.holdUnpack(t) {
			continue
		}
		var pieces [][]graph.Key
		if isUnpack(t) {
			var err error
			if pieces, err = s.unpackPieces(t); err != nil {
				s.refuse(t, protocol.Retry, err.Error()) // the scheduler starts the shuffle again
				continue
			}
		}
		s.take(t.spec.Resources, -1)
		t.state = Executing
		t.need = need
		s.mem.committed += need
		s.executing++
		s.out = append(s.out, Instruction{Kind: Execute, Task: t.spec, Shuffle: t.shuffle, Pieces: pieces})
	}
	s.prefetchNext()
	s.startFetches()
}

// prefetchNext asks for the inputs of the task that runs next to be read
// ahead, once, while results lie on disk (the last reading's): with one
// thread a worker, a task reading its input back from disk leaves its
// core idle, where the disk could have read it during the task before.
func (s *State) prefetchNext() {
	if s.mem.out <= 0 {
		return
	}
	if t := s.readyHead(); t != nil && !t.prefetch {
		t.prefetch = true
		s.out = append(s.out, Instruction{Kind: Prefetch, Task: t.spec})
	}
}

func (s *State) removeSpecial(t *task) {
	s.special = slices.DeleteFunc(s.special, func(x *task) bool { return x == t })
}

// readyHead returns the first ready task, dropping stale entries.
func (s *State) readyHead() *task {
	for {
		t, seq, ok := s.ready.Peek()
		if !ok {
			return nil
		}
		if t.state == Ready && t.readySeq == seq && s.tasks[t.key] == t {
			return t
		}
		s.ready.Pop()
	}
}

func (s *State) fits(need graph.Resources) bool {
	if _, ok := need["cpu"]; !ok && s.free["cpu"] < 1 {
		return false
	}
	for n, v := range need {
		if s.free[n] < v {
			return false
		}
	}
	return true
}

// take adds sign × need to the free resources; a task without "cpu" takes
// one thread.
func (s *State) take(need graph.Resources, sign float64) {
	if _, ok := need["cpu"]; !ok {
		s.free["cpu"] += sign
	}
	for n, v := range need {
		s.free[n] += sign * v
	}
}

func (s *State) release(t *task) {
	s.take(t.spec.Resources, +1)
	s.executing--
	s.mem.committed -= t.need
	t.need = 0
}

func (s *State) send(m protocol.Msg) { s.out = append(s.out, Instruction{Kind: Send, Msg: m}) }

// mergeHolders adds the holders in add that are not known, known to fail,
// or this worker itself.
func mergeHolders(ws, add, failed []protocol.WorkerID, self protocol.WorkerID) []protocol.WorkerID {
	for _, w := range add {
		if w != self && !slices.Contains(ws, w) && !slices.Contains(failed, w) {
			ws = append(ws, w)
		}
	}
	return ws
}
