package scheduler

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/prioq"
	"github.com/duskdata/dusk/internal/protocol"
)

// TaskState is where a task stands, as in Dask.
type TaskState uint8

const (
	// Released: known, not running and holding no result. Tasks stay released
	// while a dependent may need them again (lineage for recomputation).
	Released TaskState = iota
	// Waiting: needed, but some inputs are not in memory yet.
	Waiting
	// NoWorker: ready, but no worker is connected to run it.
	NoWorker
	// Queued: a ready root task held back until a worker has a free slot.
	Queued
	// Processing: assigned to a worker.
	Processing
	// Memory: the result is held by one or more workers.
	Memory
	// Erred: it failed, or an input did.
	Erred
	// Forgotten: gone from the scheduler.
	Forgotten
)

var stateNames = [...]string{"released", "waiting", "no-worker", "queued", "processing", "memory", "erred", "forgotten"}

func (s TaskState) String() string { return stateNames[s] }

// active states are those in which a task still needs its inputs' results.
func (s TaskState) active() bool { return s >= Waiting && s <= Processing }

// Config tunes the scheduler. The zero value of a field means its default.
type Config struct {
	// KilledWorkerLimit is how many workers may die while running one task
	// before the task fails as their suspected killer. Default 3.
	KilledWorkerLimit int
	// Saturation is how many root tasks a worker gets per thread. Default 1.1:
	// a little more than it can run, so that it never waits, and no more, so
	// that a read of 1,000 files does not load them all at once.
	Saturation float64
	// QueueLatency is the time a worker should have work for beyond its
	// running tasks. Root tasks known to be shorter than this are sent in
	// batches that last about this long, so that tiny tasks do not wait for
	// round trips. Default 2ms.
	QueueLatency time.Duration
	// UnknownDuration is the guess for a kind of task not yet seen. Default 500ms.
	UnknownDuration time.Duration
	// Bandwidth is the assumed transfer rate between workers in bytes per
	// second, used to weigh data locality against load until the workers
	// have measured theirs (WorkerMetrics.Bandwidth: their mean is used
	// then, as Dask's scheduler does). Default 100 MB/s.
	Bandwidth float64
	// NoHolderTimeout is how long a task waits, in a pool of workers of
	// several binaries, for a worker whose binary registers what it needs
	// when none present does, before it fails naming what and the workers
	// there are. Measured by Tick. Default 60s, as --death-timeout.
	NoHolderTimeout time.Duration
}

func (c Config) withDefaults() Config {
	if c.KilledWorkerLimit <= 0 {
		c.KilledWorkerLimit = 3
	}
	if c.Saturation <= 0 {
		c.Saturation = 1.1
	}
	if c.QueueLatency <= 0 {
		c.QueueLatency = 2 * time.Millisecond
	}
	if c.UnknownDuration <= 0 {
		c.UnknownDuration = 500 * time.Millisecond
	}
	if c.Bandwidth <= 0 {
		c.Bandwidth = 100e6
	}
	if c.NoHolderTimeout <= 0 {
		c.NoHolderTimeout = 60 * time.Second
	}
	return c
}

// maxExtraSlots caps the batch of tiny root tasks a thread is given.
const maxExtraSlots = 1000

// Envelope is one message to send: to a worker or to a client.
type Envelope struct {
	Worker protocol.WorkerID
	Client protocol.ClientID
	Msg    protocol.Msg
}

type task struct {
	spec   graph.Spec // its key alone for an input nobody submitted
	prefix *prefix
	prio   protocol.Priority

	// links are its distinct inputs (the first ndeps) then its dependents.
	links  []*task
	whoHas []*worker

	nbytes       int64
	processingOn *worker
	run          uint64     // the number of its latest assignment
	queueSeq     uint64     // the ticket of its live entry in the queue
	extra        *taskExtra // what few tasks have; nil for the others

	ndeps int32
	// waitingOn counts, while it waits, the inputs not in memory; while it
	// processes, the same field is its slot (see slot).
	waitingOn int32
	waiters   int32 // dependents in an active state: they need this result
	state     TaskState
	done      bool // it ran, and has not been started again since (Progress)
	submitted bool // its spec came from a client: it can be computed
}

// slot is t's index in processingOn.assigned while it processes: it shares
// waitingOn's field, for a task never waits and processes at once, and a
// million tasks are 16 MB smaller in 144-byte records than in 160.
func (t *task) slot() int32 { return t.waitingOn }

func (t *task) setSlot(i int) { t.waitingOn = int32(i) }

// key is t's key, a part of its spec.
func (t *task) key() graph.Key { return t.spec.Key() }

// deps are t's distinct inputs.
func (t *task) deps() []*task { return t.links[:t.ndeps] }

// dependents are the tasks that take t as an input.
func (t *task) dependents() []*task { return t.links[t.ndeps:] }

// addDep links d as an input of t.
func (t *task) addDep(d *task) {
	t.links = slices.Insert(t.links, int(t.ndeps), d)
	t.ndeps++
	d.links = append(d.links, t)
}

// dropDependent unlinks x from t's dependents.
func (t *task) dropDependent(x *task) {
	rest := slices.DeleteFunc(t.links[t.ndeps:], func(y *task) bool { return y == x })
	t.links = t.links[:int(t.ndeps)+len(rest)]
}

// taskExtra holds the fields of a task that few tasks use: apart, a task
// is 144 bytes (one allocation) where it was 264 (of 288), for a scheduler
// of a million tasks holds them all.
type taskExtra struct {
	shuffle     *graph.Shuffle  // its part in a shuffle, decoded from its spec
	resources   graph.Resources // what it needs of a worker, decoded from its spec
	wantedBy    []protocol.ClientID
	stealTo     *worker // the worker a steal under way would give it to
	unstealable bool    // its worker refused to give it up: it runs there
	suspicious  int     // workers that died while running it
	err         *protocol.TaskError
	limit       *limit // its computation's MaxWorkers, if any
	// missing are what it needs that no present worker's binary has, while
	// it waits in no-worker for one; missingSince is the first Tick that
	// saw it wait so.
	missing      []string
	missingSince time.Time
}

// ex returns t's extra fields to read: zero where it has none.
func (t *task) ex() taskExtra {
	if t.extra == nil {
		return taskExtra{}
	}
	return *t.extra
}

// more returns t's extra fields to write, making them if need be.
func (t *task) more() *taskExtra {
	if t.extra == nil {
		t.extra = &taskExtra{}
	}
	return t.extra
}

// shuffle is t's part in a shuffle, nil where it has none.
func (t *task) shuffle() *graph.Shuffle {
	if t.extra == nil {
		return nil
	}
	return t.extra.shuffle
}

// resources are what t needs of the worker that runs it.
func (t *task) resources() graph.Resources {
	if t.extra == nil {
		return nil
	}
	return t.extra.resources
}

func (t *task) needed() bool { return t.waiters > 0 || t.extra != nil && len(t.extra.wantedBy) > 0 }

// root tasks have no inputs and need no special resources: they are queued
// on the scheduler and handed out as workers have room.
func (t *task) root() bool {
	return len(t.deps()) == 0 && (t.extra == nil || t.extra.limit == nil && len(t.extra.resources) == 0)
}

// limit caps how many workers run one computation's tasks at once (the
// client's MaxWorkers): a worker is admitted while it processes some of them,
// or while fewer than max workers do.
type limit struct {
	max int
	on  map[*worker]int // the computation's processing tasks, per worker
}

func (l *limit) admits(w *worker) bool { return l == nil || l.on[w] > 0 || len(l.on) < l.max }

type worker struct {
	id        protocol.WorkerID
	name      string
	index     int // join order, for deterministic ties
	nthreads  int
	resources graph.Resources
	ops       *opSet    // the operations its binary registers
	assigned  []*task   // tasks processing on it; a task's slot is its index
	estimates []float32 // seconds, each assigned task's share of occupancy
	occupancy float64   // seconds of estimated work assigned
	nbytes    int64     // of the results it holds
	incoming  int       // steals under way to it
	retiring  bool      // leaving: no new work, its data is copied away
	handoff   []*task   // results being copied off it before it may leave
	paused    bool      // its memory is high: no new work until it resumes
	reason    string    // why it paused
	// metrics is its last report (memory, CPU, traffic), without its
	// activity and logs; dashboard where it serves its /metrics.
	metrics   protocol.WorkerMetrics
	dashboard string
}

// available reports whether w may be given new work.
func (w *worker) available() bool { return !w.retiring && !w.paused }

type prefix struct {
	name     string
	duration float64 // seconds; < 0 while unknown
	counts   counts
}

// State is the scheduler's core. It is not safe for concurrent use: one
// goroutine feeds it events and sends what Outbox returns.
type State struct {
	cfg Config
	// bandwidth is the transfer rate placement and stealing assume
	// (measuredBandwidth).
	bandwidth float64
	tasks     taskIndex
	workers   map[protocol.WorkerID]*worker
	order     []*worker // join order
	joined    int
	clients   map[protocol.ClientID]bool
	// waits are the clients' WorkersQuery that wait for more workers.
	waits    []workersWait
	prefixes map[string]*prefix
	gen      int64
	runs     uint64          // assignments made
	offered  graph.Resources // the most of each resource any worker has offered

	shuffles map[string]*shuffle
	partial  map[protocol.ClientID]*partialGraph
	ops      opBooks // which workers' binaries have which operations
	// shuffleRuns numbers the shuffles' runs, all of them, so that a run
	// number is never used twice: a worker lets go of pieces of a run it
	// was told to drop, even if a shuffle of the same name comes again.
	shuffleRuns uint64

	queue      prioq.Queue[*task] // queued root tasks; stale entries skipped
	noWorker   map[*task]struct{} // ready tasks waiting for a worker
	recheck    []*task            // tasks whose need may have changed
	limitFreed bool               // a limited computation left a worker: its waiting tasks may go there
	shared     *shared            // the clients' variables, queues, locks, events and datasets
	forgotten  []graph.Key        // fire-and-forget keys done, to release
	freed      []*worker          // workers with a slot freed since the last fill
	fillAll    bool
	out        []Envelope
}

// New returns an empty scheduler.
func New(cfg Config) *State {
	cfg = cfg.withDefaults()
	return &State{
		cfg:       cfg,
		bandwidth: cfg.Bandwidth,
		tasks:     newTaskIndex(),
		workers:   make(map[protocol.WorkerID]*worker),
		clients:   make(map[protocol.ClientID]bool),
		shared:    newShared(),
		prefixes:  make(map[string]*prefix),
		noWorker:  make(map[*task]struct{}),
		offered:   graph.Resources{},
		shuffles:  make(map[string]*shuffle),
		partial:   make(map[protocol.ClientID]*partialGraph),
		ops:       newOpBooks(),
	}
}

// Outbox returns the messages produced since the last call, in order, and
// forgets them.
func (s *State) Outbox() []Envelope {
	out := s.out
	s.out = nil
	return out
}

// step ends every event: settle the consequences, hand out queued work,
// and let idle workers take work others have not started.
func (s *State) step() {
	s.settle()
	for len(s.forgotten) > 0 {
		keys := s.forgotten
		s.forgotten = nil
		s.releaseKeys(protocol.FireAndForget, keys)
		s.settle()
	}
	if s.limitFreed {
		s.limitFreed = false
		s.placeNoWorker()
		s.settle()
	}
	s.fill()
	s.balance()
	s.retirements()
}

// retirements lets a retiring worker go once nothing it waits to hand off
// still needs it: each result it waits on was copied, released, or is no
// longer its alone.
func (s *State) retirements() {
	for _, w := range s.order {
		if !w.retiring || len(w.handoff) == 0 {
			continue
		}
		w.handoff = slices.DeleteFunc(w.handoff, func(t *task) bool {
			return s.tasks.get(t.key()) != t || t.state != Memory || !t.needed() || len(t.whoHas) != 1 || t.whoHas[0] != w
		})
		s.maybeRetired(w)
	}
}

// ---- events ----

// WorkerJoined adds a worker. A worker that offers no "cpu" offers its threads.
func (s *State) WorkerJoined(h *protocol.HelloWorker) {
	if _, ok := s.workers[h.ID]; ok {
		return
	}
	res := graph.Resources{}
	for n, v := range h.Resources {
		res[n] = v
	}
	if _, ok := res["cpu"]; !ok {
		res["cpu"] = float64(h.NThreads)
	}
	w := &worker{
		id: h.ID, name: h.Name, index: s.joined, nthreads: max(h.NThreads, 1), resources: res, dashboard: h.Dashboard,
		ops: s.ops.join(h.Ops),
	}
	for n, v := range res {
		s.offered[n] = max(s.offered[n], v)
	}
	s.joined++
	s.workers[h.ID] = w
	s.order = append(s.order, w)
	for _, o := range s.order {
		if o.retiring && len(o.handoff) > 0 {
			s.handOff(o) // what had nowhere to go may go here
		}
	}
	s.placeNoWorker()
	s.fillAll = true
	s.answerWaits()
	s.step()
}

// placeNoWorker gives the tasks waiting for a worker their chance: one
// joined or resumed.
func (s *State) placeNoWorker() {
	for _, t := range sortedSet(s.noWorker) {
		delete(s.noWorker, t)
		s.setState(t, Waiting)
		s.ready(t)
	}
}

// WorkerLost removes a worker that died or left: its running tasks run again
// elsewhere and the results only it held are recomputed if still needed.
func (s *State) WorkerLost(id protocol.WorkerID) Loss {
	var loss Loss
	w := s.workers[id]
	if w == nil {
		return loss
	}
	delete(s.workers, id)
	s.ops.leave(w.ops)
	for i, o := range s.order {
		if o == w {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	s.bandwidth = s.measuredBandwidth()
	// Workers are lost rarely: scanning every task beats keeping a set of
	// the results each worker holds up to date for every result.
	var held []*task
	for _, t := range s.byPriority() {
		if slices.Contains(t.whoHas, w) {
			held = append(held, t)
		}
	}
	for _, t := range sortedTasks(w.assigned) {
		loss.Running = append(loss.Running, t.key())
		s.unassign(t)
		t.more().suspicious++
		if t.extra.suspicious >= s.cfg.KilledWorkerLimit {
			s.fail(t, &protocol.TaskError{
				Kind: protocol.KilledWorker, Key: t.key(), Worker: id,
				Message: fmt.Sprintf("%d workers died while running this task (the limit is %d): "+
					"it may be running out of memory or crashing its process; the last was %s",
					t.extra.suspicious, s.cfg.KilledWorkerLimit, id),
			})
			continue
		}
		s.setState(t, Released)
		s.recheck = append(s.recheck, t)
	}
	for _, t := range held {
		t.whoHas = slices.DeleteFunc(t.whoHas, func(x *worker) bool { return x == w })
		if len(t.whoHas) == 0 {
			if t.state == Memory {
				loss.Lost = append(loss.Lost, t.key())
			}
			s.lose(t)
		}
	}
	loss.Shuffles = s.shufflesLost(id)
	for _, o := range s.order {
		if o.retiring && len(o.handoff) > 0 {
			s.handOff(o) // some copies may have been meant for w
		}
	}
	s.fillAll = true
	s.step()
	return loss
}

// Tick tells the core the time: a task that has waited NoHolderTimeout
// for a worker whose binary has what it needs fails, naming what and the
// workers there are. The driver calls it every second or so.
func (s *State) Tick(now time.Time) {
	if !s.ops.mixed() {
		return // only a pool of several binaries has such tasks
	}
	failed := false
	for _, t := range sortedSet(s.noWorker) {
		x := t.extra
		if x == nil || len(x.missing) == 0 {
			continue
		}
		if x.missingSince.IsZero() {
			x.missingSince = now
			continue
		}
		if waited := now.Sub(x.missingSince); waited >= s.cfg.NoHolderTimeout {
			s.fail(t, s.noHolderError(t, x.missing, waited))
			failed = true
		}
	}
	if failed {
		s.step()
	}
}

// noHolderError says what t needs that no worker's binary has.
func (s *State) noHolderError(t *task, missing []string, waited time.Duration) *protocol.TaskError {
	ids := make([]string, len(s.order))
	for i, w := range s.order {
		ids[i] = string(w.id)
	}
	return &protocol.TaskError{Kind: protocol.NoWorker, Key: t.key(),
		Message: fmt.Sprintf("no worker's binary registers %s, which this task needs: waited %s for one (the workers here: %s); "+
			"start workers from the program that registers it (./myprog worker --scheduler ...)",
			strings.Join(missing, ", "), waited.Round(time.Second), strings.Join(ids, ", "))}
}

// Loss is what a lost worker took with it: the tasks it was running, which
// run again elsewhere (or fail, past the killed-worker limit), and the
// results only it held, which are recomputed where still wanted.
type Loss struct {
	Running, Lost []graph.Key
	Shuffles      []ShuffleLoss
}

// ShuffleLoss is what a lost worker cost a shuffle under way: Moved of its
// Outputs are assembled anew (all of them when it starts over).
type ShuffleLoss struct {
	ID             string
	Moved, Outputs int
}

// Retiring says whether worker id is leaving of its own accord (Retire):
// its going is no loss.
func (s *State) Retiring(id protocol.WorkerID) bool {
	w := s.workers[id]
	return w != nil && w.retiring
}

// ClientJoined registers a client.
func (s *State) ClientJoined(id protocol.ClientID) { s.clients[id] = true }

// ClientLost releases every key the client wanted.
func (s *State) ClientLost(id protocol.ClientID) {
	delete(s.clients, id)
	if p := s.partial[id]; p != nil { // a graph it never finished sending
		delete(s.partial, id)
		s.recheck = append(s.recheck, p.fresh...)
	}
	s.sharedClientLost(id)
	s.waits = slices.DeleteFunc(s.waits, func(w workersWait) bool { return w.client == id })
	var keys []graph.Key
	for t := range s.tasks.all() {
		for _, c := range t.ex().wantedBy {
			if c == id {
				keys = append(keys, t.key())
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	s.releaseKeys(id, keys)
	s.step()
}

// workersWait is a client's WorkersQuery, answered once enough workers are here.
type workersWait struct {
	client protocol.ClientID
	q      *protocol.WorkersQuery
}

// answerWaits answers the queries whose count of workers is reached.
func (s *State) answerWaits() {
	s.waits = slices.DeleteFunc(s.waits, func(w workersWait) bool {
		if len(s.workers) < w.q.AtLeast {
			return false
		}
		s.send2(w.client, &protocol.WorkersReply{ID: w.q.ID, Workers: s.Workers()})
		return true
	})
}

// FromClient handles a client's message.
// An unexpected message is an error for the driver to log; the state is
// left as it was.
func (s *State) FromClient(id protocol.ClientID, m protocol.Msg) error {
	switch m := m.(type) {
	case *protocol.UpdateGraph:
		s.updateGraph(id, m)
	case *protocol.ReleaseKeys:
		s.releaseKeys(id, m.Keys)
	case *protocol.MissingData:
		s.clientMissing(id, m)
	case *protocol.WorkersQuery:
		s.waits = append(s.waits, workersWait{id, m})
		s.answerWaits()
		return nil
	case *protocol.ProgressQuery:
		s.send2(id, &protocol.ProgressReply{ID: m.ID, Progress: s.Progress()})
		return nil
	case *protocol.Shared:
		s.sharedRequest(id, m)
	default:
		return fmt.Errorf("scheduler: unexpected message %T from client %s", m, id)
	}
	s.step()
	return nil
}

// FromWorker handles a worker's message. An unexpected message is an error
// for the driver to log; the state is left as it was.
func (s *State) FromWorker(id protocol.WorkerID, m protocol.Msg) error {
	w := s.workers[id]
	if w == nil {
		return nil // a message from a worker already declared lost
	}
	switch m := m.(type) {
	case *protocol.TaskFinished:
		s.taskFinished(w, m)
	case *protocol.TaskErred:
		s.taskErred(w, m)
	case *protocol.AddKeys:
		for i, k := range m.Keys {
			switch t := s.tasks.get(k); {
			case t != nil && t.state == Memory:
				s.addReplica(t, w, m.Nbytes[i])
				s.handedOff(t)
			case t != nil && t.state == Processing && t.processingOn == w:
				// Sent before w was asked to compute it: w reports the
				// key as finished once it sees that request.
			default:
				s.free(w.id, k)
			}
		}
	case *protocol.ReleasedData:
		for _, k := range m.Keys {
			if t := s.tasks.get(k); t != nil {
				s.dropReplica(t, w)
			}
		}
	case *protocol.MissingData:
		s.missingData(w, m)
	case *protocol.StealResponse:
		s.stealResponse(w, m)
	case *protocol.Retire:
		s.retire(w)
	case *protocol.WorkerStatus:
		s.workerStatus(w, m)
	case *protocol.WorkerMetrics:
		w.metrics = *m
		w.metrics.Activity, w.metrics.Logs = nil, nil
		s.bandwidth = s.measuredBandwidth()
		return nil // nothing else changes now
	default:
		return fmt.Errorf("scheduler: unexpected message %T from worker %s", m, id)
	}
	s.step()
	return nil
}

// workerStatus pauses or resumes w: a paused worker gets no new work, and
// idle workers may take what it was given and has not started.
func (s *State) workerStatus(w *worker, m *protocol.WorkerStatus) {
	w.reason = m.Reason
	if m.Paused == w.paused {
		return
	}
	w.paused = m.Paused
	if !w.paused {
		s.placeNoWorker()
		s.fillAll = true
	}
}

// measuredBandwidth is the mean of the workers' measured transfer rates,
// or the configured one where none has measured any: a link of 100 Mbit/s
// moves 12.5 MB a second, and a task placed or stolen away from 12 MB of
// its inputs waits a second for them, not the tenth the default supposes.
func (s *State) measuredBandwidth() float64 {
	var sum float64
	var n int
	for _, w := range s.order {
		if b := w.metrics.Bandwidth; b > 0 {
			sum += b
			n++
		}
	}
	if n == 0 {
		return s.cfg.Bandwidth
	}
	return sum / float64(n)
}

// Workers describes the workers, in the order they joined.
func (s *State) Workers() []protocol.WorkerInfo {
	out := make([]protocol.WorkerInfo, len(s.order))
	for i, w := range s.order {
		res := graph.Resources{}
		for n, v := range w.resources {
			res[n] = v
		}
		out[i] = protocol.WorkerInfo{ID: w.id, Name: w.name, NThreads: w.nthreads, Resources: res,
			Processing: len(w.assigned), Held: w.nbytes, Memory: w.metrics.Memory,
			Paused: w.paused, Reason: w.reason, Retiring: w.retiring,
			CPU: w.metrics.CPU, Received: w.metrics.Received, Sent: w.metrics.Sent,
			WireReceived: w.metrics.WireReceived, WireSent: w.metrics.WireSent, Dashboard: w.dashboard}
	}
	return out
}

// partialGraph is a graph a client sends in parts: its tasks are filed as
// each part comes, so that the scheduler never holds the whole graph's
// messages beside its tasks, and linked once the last part is in.
type partialGraph struct {
	gen   int64
	fresh []*task
}

func (s *State) updateGraph(c protocol.ClientID, m *protocol.UpdateGraph) {
	if !c.Internal() {
		s.clients[c] = true
	}
	p := s.partial[c]
	if p == nil {
		s.gen++
		p = &partialGraph{gen: s.gen}
		if !m.More {
			s.tasks.reserve(len(m.Tasks)) // a part's size says little of the whole
		}
	}
	// Create the part's new tasks first, then link them, so that inputs
	// submitted after their dependents are found; an input still unknown
	// is filed unsubmitted, for a later part to submit (or, if none does,
	// as one that must already be held).
	first := len(p.fresh)
	for _, spec := range m.Tasks {
		key := spec.Key()
		t := s.tasks.get(key)
		if t == nil {
			t = s.newTask(spec)
		}
		if !t.submitted {
			t.spec, t.submitted = spec, true
			t.prio = protocol.Priority{Gen: p.gen, Ord: -1}
			p.fresh = append(p.fresh, t)
			// Specs reach the core checked (graph.ParseSpec at the wire,
			// or encoded in this process).
			res, sh, _ := spec.Head()
			if len(res) > 0 {
				t.more().resources = res
			}
			if sh != nil {
				t.more().shuffle = sh
				s.addShuffleTask(t)
			}
		}
	}
	for _, t := range p.fresh[first:] {
		// Room for the inputs and a dependent, as most tasks have.
		t.links = slices.Grow(t.links, t.spec.NumInputs()+1)
		t.spec.Inputs(func(in graph.Key) {
			d := s.tasks.get(in)
			if d == nil {
				// Its spec is its own, not a part of t's that would keep
				// it alive.
				d = s.newTask(keySpec(in))
				d.prio = protocol.Priority{Gen: p.gen}
			}
			if !slices.Contains(t.deps(), d) {
				t.addDep(d)
			}
		})
	}
	if m.More {
		s.partial[c] = p
		return
	}
	delete(s.partial, c)
	fresh := p.fresh
	if m.MaxWorkers > 0 {
		lim := &limit{max: m.MaxWorkers, on: map[*worker]int{}}
		for _, t := range fresh {
			t.more().limit = lim
		}
	}
	s.prioritize(p.gen, fresh, m.Keys)
	for _, k := range m.Keys {
		t := s.tasks.get(k)
		if t == nil {
			t = s.newTask(keySpec(k))
		}
		if slices.Contains(t.ex().wantedBy, c) {
			continue
		}
		t.more().wantedBy = append(t.extra.wantedBy, c)
		switch t.state {
		case Memory:
			s.reportMemory(t, c)
		case Erred:
			s.send2(c, &protocol.KeyErred{Key: t.key(), Err: t.ex().err})
		default:
			s.recheck = append(s.recheck, t)
		}
	}
}

// prioritize numbers the new tasks of a submission (those with Ord -1) in
// depth-first post-order from the wanted keys, so that the inputs of one
// reduction run together and are combined, then freed, before the next
// group starts: this keeps memory low. New tasks no wanted key needs follow
// in submission order.
func (s *State) prioritize(gen int64, fresh []*task, wanted []graph.Key) {
	type frame struct {
		t    *task
		next int
	}
	var stack []frame
	n := int64(0)
	walk := func(root *task) {
		root.prio.Ord = -2 // on the stack
		stack = append(stack, frame{t: root})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next < len(top.t.deps()) {
				d := top.t.deps()[top.next]
				top.next++
				if d.prio.Gen == gen && d.prio.Ord == -1 {
					d.prio.Ord = -2
					stack = append(stack, frame{t: d})
				}
				continue
			}
			top.t.prio.Ord = n
			n++
			stack = stack[:len(stack)-1]
		}
	}
	for _, k := range wanted {
		if t := s.tasks.get(k); t != nil && t.prio.Gen == gen && t.prio.Ord == -1 {
			walk(t)
		}
	}
	for _, t := range fresh {
		if t.prio.Ord == -1 {
			walk(t)
		}
	}
}

// keySpec is the spec of a task known only by its key.
func keySpec(k graph.Key) graph.Spec { return (&graph.Task{Key: k}).Spec() }

// newTask files a task under spec's key, not submitted until its caller
// says so.
func (s *State) newTask(spec graph.Spec) *task {
	k := spec.Key()
	name := k.Prefix()
	p := s.prefixes[name]
	if p == nil {
		p = &prefix{name: name, duration: -1}
		s.prefixes[name] = p
	}
	t := &task{spec: spec, prefix: p}
	p.counts.states[Released]++
	s.tasks.put(t)
	return t
}

func (s *State) releaseKeys(c protocol.ClientID, keys []graph.Key) {
	for _, k := range keys {
		t := s.tasks.get(k)
		if t == nil {
			continue
		}
		for i, o := range t.ex().wantedBy {
			if o == c {
				t.extra.wantedBy = slices.Delete(t.extra.wantedBy, i, i+1)
				s.recheck = append(s.recheck, t)
				break
			}
		}
	}
}

func (s *State) taskFinished(w *worker, m *protocol.TaskFinished) {
	t := s.tasks.get(m.Key)
	switch {
	case t == nil:
		s.free(w.id, m.Key)
		return
	case t.state == Processing && t.processingOn == w && m.Run != t.run:
		return // an earlier run's report: w reports the current run too
	case t.state != Processing || t.processingOn != w:
		// Cancelled, lost, or already computed elsewhere: keep a copy only
		// of a result that is in memory anyway.
		if t.state == Memory {
			s.addReplica(t, w, m.Nbytes)
		} else {
			s.free(w.id, m.Key)
		}
		return
	}
	if m.Duration > 0 { // 0: fetched, not computed
		s.learnDuration(t.prefix, m.Duration)
	}
	s.unassign(t)
	s.setState(t, Memory)
	s.addReplica(t, w, m.Nbytes)
	s.shuffleTaskDone(t)
	for _, c := range t.ex().wantedBy {
		s.reportMemory(t, c)
	}
	for _, d := range t.dependents() {
		if d.state == Waiting {
			d.waitingOn--
			if d.waitingOn == 0 {
				s.ready(d)
			}
		}
	}
	s.recheck = append(s.recheck, t)
}

func (s *State) taskErred(w *worker, m *protocol.TaskErred) {
	t := s.tasks.get(m.Key)
	if t == nil || t.state != Processing || t.processingOn != w || m.Run != t.run {
		return
	}
	err := m.Err
	if err == nil {
		err = &protocol.TaskError{Key: m.Key, Worker: w.id, Message: "unknown error"}
	}
	if sh := s.shuffleOf(t); sh != nil && err.Kind == protocol.Retry {
		s.restartShuffle(sh, err.Error())
		return
	}
	s.fail(t, err)
}

// clientMissing handles a client that found no copy of a key where it was
// told to look: that copy is dropped, and the client hears again where the
// key is, now or once it is recomputed.
func (s *State) clientMissing(c protocol.ClientID, m *protocol.MissingData) {
	t := s.tasks.get(m.Key)
	if t == nil {
		return
	}
	// A report older than the current result (recomputed since) is about a
	// copy that is gone already.
	current := m.Run == 0 || m.Run == t.run
	if from := s.workers[m.From]; current && from != nil && slices.Contains(t.whoHas, from) {
		s.free(from.id, t.key())
		s.dropReplica(t, from)
	}
	if t.state == Memory && slices.Contains(t.ex().wantedBy, c) {
		s.reportMemory(t, c)
	}
}

func (s *State) missingData(w *worker, m *protocol.MissingData) {
	t := s.tasks.get(m.Key)
	if t == nil || m.Run != 0 && m.Run != t.run {
		return // or about a result recomputed since
	}
	if from := s.workers[m.From]; from != nil && slices.Contains(t.whoHas, from) {
		// Whatever from still holds of it is of no use: free it there.
		s.free(from.id, t.key())
		s.dropReplica(t, from)
	}
	if t.state == Processing && t.processingOn == w {
		// w was asked to compute the key while it was fetching it; the
		// fetch failed: ask again, and w computes it.
		s.stop(t)
		s.setState(t, Released)
		s.recheck = append(s.recheck, t)
		return
	}
	// The tasks on w that needed it start over: they are sent again, with
	// fresh locations, once the key is in memory.
	for _, d := range t.dependents() {
		if d.state == Processing && d.processingOn == w {
			s.stop(d)
			s.setState(d, Released)
			s.recheck = append(s.recheck, d)
		}
	}
}

// ---- transitions ----

// setState moves t to state to, and keeps its inputs' count of active
// dependents right when t enters or leaves an active state.
func (s *State) setState(t *task, to TaskState) {
	was := t.state.active()
	t.prefix.counts.move(t, to)
	t.state = to
	if now := to.active(); now != was {
		for _, d := range t.deps() {
			if now {
				d.waiters++
			} else {
				d.waiters--
				if d.waiters == 0 {
					s.recheck = append(s.recheck, d)
				}
			}
		}
	}
}

// settle brings every task whose need may have changed to the state its
// need calls for: needed and released tasks run, unneeded ones are cancelled,
// their results freed, and tasks nothing refers to forgotten.
func (s *State) settle() {
	for len(s.recheck) > 0 {
		t := s.recheck[len(s.recheck)-1]
		s.recheck = s.recheck[:len(s.recheck)-1]
		needed := t.needed()
		switch {
		case t.state == Forgotten:
		case needed && t.state == Released:
			s.wait(t)
		case needed:
		case t.state.active():
			s.cancel(t)
		case t.state == Memory:
			s.freeData(t)
			s.recheck = append(s.recheck, t)
		case len(t.dependents()) == 0:
			s.forget(t)
		}
	}
}

// wait starts computing t: it waits for its inputs, which start too.
func (s *State) wait(t *task) {
	if !t.submitted {
		s.fail(t, &protocol.TaskError{Kind: protocol.Lost, Key: t.key(),
			Message: "this key is not on the cluster: it was never submitted, or it was released and cannot be recomputed"})
		return
	}
	s.setState(t, Waiting)
	t.waitingOn = 0
	for _, d := range t.deps() {
		switch d.state {
		case Memory:
		case Erred:
			s.fail(t, d.ex().err)
			return
		default:
			t.waitingOn++
			if d.state == Released {
				s.recheck = append(s.recheck, d)
			}
		}
	}
	if t.waitingOn == 0 {
		s.ready(t)
	}
}

// ready places a waiting task whose inputs are all in memory: root tasks
// join the queue, others go to the best worker.
func (s *State) ready(t *task) {
	if t.root() && s.ops.everywhere(t.spec) {
		s.setState(t, Queued)
		t.queueSeq = s.queue.Push(t, t.prio)
		s.fillAll = true
		return
	}
	if len(s.order) == 0 {
		s.setState(t, NoWorker)
		s.noWorker[t] = struct{}{}
		return
	}
	if sh := t.shuffle(); sh != nil && sh.Role == graph.Unpack && !s.readyUnpack(t) {
		return // its shuffle starts again: it waits for its barrier
	}
	w := s.decideWorker(t)
	switch {
	case w != nil:
		s.assign(t, w)
	case s.everOffered(t):
		// The workers that can run it are gone for now: wait for one.
		s.setState(t, NoWorker)
		s.noWorker[t] = struct{}{}
		if missing := s.ops.missing(t.spec); len(missing) > 0 {
			t.more().missing = missing // Tick fails it past NoHolderTimeout
		} else if x := t.extra; x != nil {
			x.missing, x.missingSince = nil, time.Time{}
		}
	default:
		s.fail(t, s.noWorkerError(t))
	}
}

func (s *State) assign(t *task, w *worker) {
	s.setState(t, Processing)
	t.processingOn = w
	est := float32(s.estimate(t.prefix))
	t.setSlot(len(w.assigned))
	if x := t.extra; x != nil {
		x.unstealable = false
		x.missing, x.missingSince = nil, time.Time{}
	}
	w.assigned = append(w.assigned, t)
	w.estimates = append(w.estimates, est)
	w.occupancy += float64(est)
	if l := t.ex().limit; l != nil {
		l.on[w]++
	}
	s.runs++
	t.run = s.runs
	m := &protocol.ComputeTask{Spec: t.spec, Priority: t.prio, Run: t.run}
	if sh := s.shuffleOf(t); sh != nil && t.shuffle().Role != graph.Barrier {
		m.Shuffle = s.runFor(sh, t)
	}
	if deps := t.deps(); len(deps) > 0 {
		// One array of holders for all the inputs: a sum of 32 inputs
		// made 32 small ones.
		n := 0
		for _, d := range deps {
			n += len(d.whoHas)
		}
		ids := make([]protocol.WorkerID, 0, n)
		m.Deps = make([]protocol.Dep, len(deps))
		for i, d := range deps {
			from := len(ids)
			for _, h := range d.whoHas {
				ids = append(ids, h.id)
			}
			m.Deps[i] = protocol.Dep{Key: d.key(), WhoHas: ids[from:len(ids):len(ids)], Nbytes: d.nbytes}
		}
	}
	s.send(w.id, m)
}

// unassign takes a processing task off its worker's books.
func (s *State) unassign(t *task) {
	w := t.processingOn
	if w == nil {
		return
	}
	i, n := t.slot(), len(w.assigned)-1
	est := w.estimates[i]
	last := w.assigned[n]
	w.assigned[i], w.estimates[i] = last, w.estimates[n]
	last.setSlot(int(i))
	w.assigned[n] = nil
	w.assigned, w.estimates = w.assigned[:n], w.estimates[:n]
	if x := t.extra; x != nil && x.stealTo != nil {
		x.stealTo.incoming--
		x.stealTo = nil
	}
	w.occupancy -= float64(est)
	if l := t.ex().limit; l != nil {
		if l.on[w]--; l.on[w] == 0 {
			delete(l.on, w)
			s.limitFreed = true
		}
	}
	if len(w.assigned) == 0 {
		w.occupancy = 0 // no drift from float sums
	}
	t.processingOn = nil
	if s.workers[w.id] == w {
		s.freed = append(s.freed, w)
	}
}

// cancel stops a task that nobody needs any more.
func (s *State) cancel(t *task) {
	s.stop(t)
	s.setState(t, Released)
	s.recheck = append(s.recheck, t)
}

// freeData drops an unneeded result from the workers that hold it.
func (s *State) freeData(t *task) {
	for _, w := range t.whoHas {
		w.nbytes -= t.nbytes
		s.free(w.id, t.key())
	}
	t.whoHas = nil
	s.setState(t, Released)
	s.shuffleOver(t)
}

// lose handles a result whose last copy is gone: dependents that were about
// to use it wait again, and it is recomputed if still needed.
func (s *State) lose(t *task) {
	if t.state != Memory {
		return
	}
	s.setState(t, Released)
	for _, d := range t.dependents() {
		switch d.state {
		case Waiting:
			d.waitingOn++
		case NoWorker, Processing:
			s.stop(d)
			s.setState(d, Released)
			s.recheck = append(s.recheck, d)
		}
	}
	s.recheck = append(s.recheck, t)
}

// stop takes a ready task off the worker, queue or set that holds it.
func (s *State) stop(t *task) {
	switch t.state {
	case Processing:
		// A worker that is still connected forgets the task; a task taken
		// off a lost worker has no processingOn any more.
		if w := t.processingOn; w != nil {
			s.unassign(t)
			s.free(w.id, t.key())
		}
	case NoWorker:
		delete(s.noWorker, t)
	}
}

// forget removes a task that is neither wanted nor referred to.
func (s *State) forget(t *task) {
	s.setState(t, Forgotten)
	s.tasks.delete(t)
	s.forgetShuffleTask(t)
	for _, d := range t.deps() {
		d.dropDependent(t)
		s.recheck = append(s.recheck, d)
	}
	// A forgotten task may stay referenced a while (a stale entry of the
	// queue): it must not keep the rest of its graph alive.
	t.links, t.ndeps, t.whoHas, t.extra = nil, 0, nil, nil
}

// fail marks t and every active dependent as erred with err and tells the
// clients that want them.
func (s *State) fail(t *task, err *protocol.TaskError) {
	stack := []*task{t}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if t.state == Erred {
			continue
		}
		s.stop(t)
		s.setState(t, Erred)
		t.more().err = err
		for _, c := range t.extra.wantedBy {
			s.send2(c, &protocol.KeyErred{Key: t.key(), Err: err})
		}
		for _, d := range t.dependents() {
			if d.state.active() {
				stack = append(stack, d)
			}
		}
		s.recheck = append(s.recheck, t)
	}
}

func (s *State) addReplica(t *task, w *worker, nbytes int64) {
	if slices.Contains(t.whoHas, w) {
		return
	}
	// The first holder's size is the result's: a late report of another
	// run (a slow worker's, after the task ran elsewhere) may measure its
	// copy differently, and each holder's count must drop what it added.
	if len(t.whoHas) == 0 {
		t.nbytes = nbytes
	}
	t.whoHas = append(t.whoHas, w)
	w.nbytes += t.nbytes
}

func (s *State) dropReplica(t *task, w *worker) {
	if !slices.Contains(t.whoHas, w) {
		return
	}
	w.nbytes -= t.nbytes
	t.whoHas = slices.DeleteFunc(t.whoHas, func(x *worker) bool { return x == w })
	if len(t.whoHas) == 0 {
		s.lose(t)
	}
}

func (s *State) reportMemory(t *task, c protocol.ClientID) {
	ids := make([]protocol.WorkerID, len(t.whoHas))
	for i, w := range t.whoHas {
		ids[i] = w.id
	}
	s.send2(c, &protocol.KeyInMemory{Key: t.key(), WhoHas: ids, Nbytes: t.nbytes, Run: t.run})
}

// ---- placement ----

// decideWorker picks the worker where t would start soonest: among those
// that can run it, the one with the least work queued per thread plus the
// time to fetch the inputs it lacks. Workers holding inputs are considered
// first. It returns nil when no worker offers t's resources.
func (s *State) decideWorker(t *task) *worker {
	if t.shuffle() != nil && t.shuffle().Role == graph.Unpack {
		return s.unpackOwner(t) // the pieces are there
	}
	var candidates []*worker
	for _, d := range t.deps() {
		for _, w := range d.whoHas {
			if s.canRun(w, t) && !slices.Contains(candidates, w) {
				candidates = append(candidates, w)
			}
		}
	}
	if len(candidates) == 0 {
		for _, w := range s.order {
			if s.canRun(w, t) {
				candidates = append(candidates, w)
			}
		}
	}
	var best *worker
	bestScore := math.Inf(1)
	for _, w := range candidates {
		var missing int64
		for _, d := range t.deps() {
			if !slices.Contains(d.whoHas, w) {
				missing += d.nbytes
			}
		}
		score := w.occupancy/float64(w.nthreads) + float64(missing)/s.bandwidth
		if best == nil || score < bestScore ||
			score == bestScore && (len(w.assigned) < len(best.assigned) ||
				len(w.assigned) == len(best.assigned) && w.index < best.index) {
			best, bestScore = w, score
		}
	}
	return best
}

func (s *State) canRun(w *worker, t *task) bool {
	if !w.available() || !t.ex().limit.admits(w) {
		return false
	}
	for name, need := range t.resources() {
		if w.resources[name] < need {
			return false
		}
	}
	return s.ops.runs(w.ops, t.spec)
}

// everOffered reports whether some worker, present or gone, offered all
// that t asks for: then a worker that can run it may come back.
func (s *State) everOffered(t *task) bool {
	for name, need := range t.resources() {
		if s.offered[name] < need {
			return false
		}
	}
	return true
}

// noWorkerError says what t asked for and the most any worker offers.
func (s *State) noWorkerError(t *task) *protocol.TaskError {
	names := make([]string, 0, len(t.resources()))
	for n := range t.resources() {
		names = append(names, n)
	}
	sort.Strings(names)
	offers := make([]string, 0, len(names))
	for _, n := range names {
		var best *worker
		for _, w := range s.order {
			if best == nil || w.resources[n] > best.resources[n] {
				best = w
			}
		}
		offers = append(offers, fmt.Sprintf("%s=%s (worker %s)", n,
			graph.Resources{n: best.resources[n]}.String()[len(n)+1:], best.id))
	}
	return &protocol.TaskError{
		Kind: protocol.NoWorker, Key: t.key(),
		Message: fmt.Sprintf("no worker can run this task: it asks for %s; the most any of the %d workers offers is %s",
			t.resources(), len(s.order), strings.Join(offers, ", ")),
	}
}

// ---- stealing ----

// balance lets workers with idle threads take tasks that a busier worker
// has been given but not started. Stealing needs a round trip to the
// victim, so only tasks expected to run longer than QueueLatency are taken,
// and only when moving their inputs costs less than running them.
func (s *State) balance() {
	if s.queueHead() != nil {
		return // queued work reaches idle workers first
	}
	for _, thief := range s.order {
		want := thief.nthreads - len(thief.assigned) - thief.incoming
		if !thief.available() || want <= 0 {
			continue
		}
		victim := s.busiest(thief)
		if victim == nil {
			return
		}
		for ; want > 0; want-- {
			t := s.stealable(victim, thief)
			if t == nil {
				break
			}
			t.more().stealTo = thief
			thief.incoming++
			s.send(victim.id, &protocol.StealRequest{Key: t.key()})
		}
	}
}

// busiest is the worker with the most tasks beyond its threads, if any; a
// paused worker runs none of its tasks soon.
func (s *State) busiest(thief *worker) *worker {
	var best *worker
	bestExcess := 0.0
	for _, w := range s.order {
		running := w.nthreads
		if w.paused {
			running = 0
		}
		excess := float64(len(w.assigned)-running) / float64(w.nthreads)
		if w != thief && excess > bestExcess {
			best, bestExcess = w, excess
		}
	}
	return best
}

// stealable picks the victim's least urgent task that is worth moving to
// the thief, or nil.
func (s *State) stealable(victim, thief *worker) *task {
	var best *task
	for _, t := range victim.assigned {
		if x := t.ex(); x.stealTo != nil || x.unstealable || !s.canRun(thief, t) || (best != nil && !best.prio.Less(t.prio)) ||
			t.shuffle() != nil && t.shuffle().Role == graph.Unpack {
			continue
		}
		duration := s.estimate(t.prefix)
		if duration < s.cfg.QueueLatency.Seconds() {
			continue // a round trip would cost more than it saves
		}
		var move int64
		for _, d := range t.deps() {
			if !slices.Contains(d.whoHas, thief) {
				move += d.nbytes
			}
		}
		if float64(move)/s.bandwidth > duration {
			continue
		}
		best = t
	}
	return best
}

// stealResponse moves a task the victim gave up to the thief.
func (s *State) stealResponse(victim *worker, m *protocol.StealResponse) {
	t := s.tasks.get(m.Key)
	if t == nil || t.ex().stealTo == nil || t.processingOn != victim {
		return // the task moved on since the request
	}
	thief := t.extra.stealTo
	if !m.Given {
		thief.incoming--
		t.extra.stealTo = nil
		t.extra.unstealable = true // it runs, or ran, on the victim
		return
	}
	s.unassign(t)
	if s.workers[thief.id] == thief && s.canRun(thief, t) {
		s.assign(t, thief)
		return
	}
	s.setState(t, Released)
	s.recheck = append(s.recheck, t)
}

// ---- retiring ----

// retire handles a worker that wants to leave: it gets no new work, its
// tasks run elsewhere, and the results only it holds that are still needed
// are copied to other workers; then it is told it may go.
func (s *State) retire(w *worker) {
	if w.retiring {
		return
	}
	w.retiring = true
	for _, t := range sortedTasks(w.assigned) {
		s.stop(t) // not a failure of the task: no suspicion
		s.setState(t, Released)
		s.recheck = append(s.recheck, t)
	}
	s.shufflesLost(w.id) // the pieces it holds leave with it
	s.handOff(w)
}

// handOff plans the copies of the results only the retiring worker w holds
// that are still needed, and tells it when there are none left to make.
func (s *State) handOff(w *worker) {
	w.handoff = nil
	copies := map[*worker][]graph.Key{}
	planned := map[*worker]int64{} // the bytes of the copies planned, so that they spread out
	var targets []*worker
	for _, t := range s.byPriority() {
		if len(t.whoHas) != 1 || t.whoHas[0] != w || !t.needed() {
			continue
		}
		to := s.roomiest(planned)
		if to == nil {
			// Nowhere to go: it stays, holding its results, until a worker
			// joins to take them (as Dask's retirement does), rather than
			// leave them to be recomputed.
			w.handoff = append(w.handoff, t)
			continue
		}
		if copies[to] == nil {
			targets = append(targets, to)
		}
		copies[to] = append(copies[to], t.key())
		planned[to] += t.nbytes
		w.handoff = append(w.handoff, t)
	}
	for _, to := range targets {
		s.send(to.id, &protocol.Replicate{Keys: copies[to], From: w.id})
	}
	s.maybeRetired(w)
}

// roomiest is the staying worker that holds the fewest bytes, with those
// planned to reach it.
func (s *State) roomiest(planned map[*worker]int64) *worker {
	var best *worker
	for _, w := range s.order {
		if w.available() && (best == nil || w.nbytes+planned[w] < best.nbytes+planned[best]) {
			best = w
		}
	}
	return best
}

// handedOff notes a new copy of t: a retiring worker that was waiting for
// it may be able to go.
func (s *State) handedOff(t *task) {
	for _, w := range s.order {
		if i := slices.Index(w.handoff, t); i >= 0 {
			w.handoff = slices.Delete(w.handoff, i, i+1)
			s.maybeRetired(w)
		}
	}
}

func (s *State) maybeRetired(w *worker) {
	if w.retiring && len(w.handoff) == 0 {
		s.send(w.id, &protocol.Retired{})
	}
}

// byPriority is every task in priority order.
func (s *State) byPriority() []*task {
	ts := make([]*task, 0, s.tasks.len())
	for t := range s.tasks.all() {
		ts = append(ts, t)
	}
	sortByPriority(ts)
	return ts
}

// ---- queue ----

// fill hands queued root tasks to workers with free slots, in priority
// order, filling one worker before the next so that neighbouring tasks (the
// inputs of one reduction) land together.
func (s *State) fill() {
	head := s.queueHead()
	if head == nil || len(s.order) == 0 {
		s.freed = s.freed[:0]
		s.fillAll = false
		return
	}
	ws, share := s.freed, math.MaxInt
	if s.fillAll {
		// Every worker has a say: none takes more than its share.
		ws, share = s.order, (s.queue.Len()+len(s.order)-1)/len(s.order)
	}
	for _, w := range ws {
		if s.workers[w.id] != w || !w.available() {
			continue
		}
		for took := 0; took < share && head != nil && len(w.assigned) < s.slots(w, head); took++ {
			s.queue.Pop()
			s.assign(head, w)
			head = s.queueHead()
		}
		if head == nil {
			break
		}
	}
	s.freed = s.freed[:0]
	s.fillAll = false
}

// queueHead returns the first queued task, dropping stale entries: tasks
// that left the queue, or entered it again under a newer ticket.
func (s *State) queueHead() *task {
	for {
		t, seq, ok := s.queue.Peek()
		if !ok {
			return nil
		}
		if t.state == Queued && t.queueSeq == seq {
			return t
		}
		s.queue.Pop()
	}
}

// slots is how many tasks w should be processing when next is the queue's
// head: its threads times the saturation, plus, for tasks known to be
// shorter than QueueLatency, enough of them to last that long.
func (s *State) slots(w *worker, next *task) int {
	n := int(math.Ceil(float64(w.nthreads) * s.cfg.Saturation))
	if d := next.prefix.duration; d >= 0 {
		lat := s.cfg.QueueLatency.Seconds()
		extra := maxExtraSlots
		if d > 0 {
			extra = min(int(lat/d), maxExtraSlots)
		}
		n += extra * w.nthreads
	}
	return n
}

// ---- durations ----

func (s *State) learnDuration(p *prefix, d time.Duration) {
	sec := d.Seconds()
	if p.duration < 0 {
		p.duration = sec
		s.fillAll = true // the batch size of its queued tasks changes
	} else {
		p.duration = 0.5*p.duration + 0.5*sec
	}
}

func (s *State) estimate(p *prefix) float64 {
	if p.duration < 0 {
		return s.cfg.UnknownDuration.Seconds()
	}
	return p.duration
}

// ---- helpers ----

// free tells a worker to forget key, joining the message before it when
// that already frees keys on the same worker, so that order is kept.
func (s *State) free(w protocol.WorkerID, k graph.Key) {
	if n := len(s.out); n > 0 && s.out[n-1].Worker == w {
		if fk, ok := s.out[n-1].Msg.(*protocol.FreeKeys); ok {
			fk.Keys = append(fk.Keys, k)
			return
		}
	}
	s.send(w, &protocol.FreeKeys{Keys: []graph.Key{k}})
}

func (s *State) send(w protocol.WorkerID, m protocol.Msg) {
	s.out = append(s.out, Envelope{Worker: w, Msg: m})
}

func (s *State) send2(c protocol.ClientID, m protocol.Msg) {
	if c.Internal() {
		if c == protocol.FireAndForget {
			switch m := m.(type) {
			case *protocol.KeyInMemory:
				s.forgotten = append(s.forgotten, m.Key)
			case *protocol.KeyErred:
				s.forgotten = append(s.forgotten, m.Key)
			}
		}
		return
	}
	s.out = append(s.out, Envelope{Client: c, Msg: m})
}

func sortByPriority(ts []*task) {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].prio != ts[j].prio {
			return ts[i].prio.Less(ts[j].prio)
		}
		return ts[i].key() < ts[j].key()
	})
}

// sortedTasks returns ts, copied, in priority order.
func sortedTasks(ts []*task) []*task {
	out := slices.Clone(ts)
	sortByPriority(out)
	return out
}

func sortedSet(m map[*task]struct{}) []*task {
	ts := make([]*task, 0, len(m))
	for t := range m {
		ts = append(ts, t)
	}
	sortByPriority(ts)
	return ts
}
