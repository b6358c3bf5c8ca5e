// Package sim runs the scheduler core and several worker cores together in
// a deterministic, seeded simulation: simulated time, a simulated network
// whose messages are delayed and reordered as far as a stream allows (each
// stream between two parties delivers in order), simulated task durations,
// result sizes and memory, peer-to-peer shuffles (their pieces pushed
// worker to worker, combined as they arrive, unpacked), and faults chosen
// by the seed — a worker lost at any moment (mid-task, mid-transfer,
// mid-shuffle, mid-merge, mid-spill), a replacement joining, a worker
// retiring, a spill that fails, memory high enough to pause a worker. After
// every event both cores' Validate must hold; a run must end with every
// wanted result equal to a plain sequential computation of the graph, and,
// once the client releases them, with no task, result or piece left
// anywhere. A seed that fails replays exactly.
//
// It drives the cores as scheduler/server and worker/process do, without goroutines, so it
// covers the cores' protocol, not the drivers' I/O.
//
// Must never import: scheduler/server, worker/process, a transport, or the collections.
package sim

import (
	"container/heap"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/scheduler"
	"github.com/duskdata/dusk/worker"
)

// Options shape a run; the seed decides everything else.
type Options struct {
	// Faults lets the seed lose workers, fail spills and push memory up.
	Faults bool
	// Twice has the client submit the same graph again as soon as it has
	// released the first results, as a benchmark's second run does: the
	// same keys, wanted again while reports of the first run may still be
	// on their way.
	Twice bool
	// Slow puts the first worker behind a bad link: every message to or
	// from it takes up to slowDelay, where the others' take milliseconds,
	// as a lossy link's retransmissions delay them (its late reports of
	// runs moved elsewhere meanwhile are what this tests).
	Slow bool
	// MaxEvents bounds a run: one that has not finished by then hangs.
	MaxEvents int
}

// Failure is a run that broke: the seed that replays it, what broke, and
// the events that led there, the last ones last.
type Failure struct {
	Seed  uint64
	Err   error
	Trace []string
}

func (f *Failure) Error() string {
	return fmt.Sprintf("seed %d: %v\nlast events:\n  %s", f.Seed, f.Err, strings.Join(f.Trace, "\n  "))
}

// Stats describe a run that passed.
type Stats struct {
	Events, Tasks, Workers, Lost int
	Time                         time.Duration // simulated
}

const (
	client     = protocol.ClientID("client")
	memLimit   = 1 << 20 // each worker's, in simulated bytes
	readEvery  = 100 * time.Millisecond
	traceDepth = 40
)

// Run simulates one seeded run and returns its statistics, or a *Failure.
func Run(seed uint64, opt Options) (Stats, error) {
	if opt.MaxEvents <= 0 {
		opt.MaxEvents = 200000
	}
	s := &sim{seed: seed, opt: opt, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		sched: scheduler.New(scheduler.Config{}), workers: map[protocol.WorkerID]*simWorker{},
		streams: map[[2]string]time.Duration{}, got: map[graph.Key]uint64{}}
	err := s.run()
	st := Stats{Events: s.events, Tasks: len(s.tasks), Workers: s.joined, Lost: s.lost, Time: s.now}
	if err != nil {
		return st, &Failure{Seed: seed, Err: err, Trace: s.trace}
	}
	return st, nil
}

type sim struct {
	seed  uint64
	opt   Options
	rng   *rand.Rand
	now   time.Duration
	queue eventQueue
	seq   uint64

	sched   *scheduler.State
	workers map[protocol.WorkerID]*simWorker
	order   []protocol.WorkerID // join order, for deterministic choices
	joined  int
	lost    int
	streams map[[2]string]time.Duration // when each stream last delivers

	tasks    []*graph.Task
	want     []graph.Key
	expected map[graph.Key]uint64
	got      map[graph.Key]uint64
	released bool
	second   bool // the graph was submitted again (Twice)

	events  int
	pending int // events that are not periodic
	trace   []string
	err     error
}

// quiet is how long a run may go on with periodic events alone (a paused
// worker waiting for a reading to fall) before it counts as a hang.
const quiet = 5 * time.Second

type simWorker struct {
	id       protocol.WorkerID
	core     *worker.State
	alive    bool
	store    map[graph.Key]*value
	runs     int                 // executions started, to tell a stale completion
	running  map[graph.Key]int   // key: the execution under way
	grows    map[graph.Key]int64 // memory a running task takes
	spillOK  bool
	retiring bool
}

type value struct {
	v       uint64
	n       int64
	spilled bool
}

// ---- the event loop ----

type event struct {
	at       time.Duration
	seq      uint64
	fn       func()
	say      string
	periodic bool // a memory reading: the run may end with these pending
}

type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	return q[i].at < q[j].at || q[i].at == q[j].at && q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

func (s *sim) at(d time.Duration, say string, fn func()) {
	s.seq++
	s.pending++
	heap.Push(&s.queue, &event{at: s.now + d, seq: s.seq, fn: fn, say: say})
}

// every runs fn after d, as a periodic event: the run ends when only such
// events are left.
func (s *sim) every(d time.Duration, fn func()) {
	s.seq++
	heap.Push(&s.queue, &event{at: s.now + d, seq: s.seq, fn: fn, periodic: true})
}

// slowWorker is the worker behind a bad link in a Slow run, and slowDelay
// the most a message to or from it takes.
const (
	slowWorker = "w1"
	slowDelay  = 2 * time.Second
)

// send delivers fn on the stream from→to after a random delay, never
// before what the stream sent earlier.
func (s *sim) send(from, to, say string, fn func()) {
	at := s.now + time.Duration(s.rng.IntN(3000))*time.Microsecond
	if s.opt.Slow && (from == slowWorker || to == slowWorker) {
		at = s.now + time.Duration(s.rng.Int64N(int64(slowDelay)))
	}
	k := [2]string{from, to}
	if last := s.streams[k]; at < last {
		at = last
	}
	s.streams[k] = at
	s.seq++
	s.pending++
	heap.Push(&s.queue, &event{at: at, seq: s.seq, fn: fn, say: from + "->" + to + " " + say})
}

func (s *sim) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf(format, args...)
	}
}

func (s *sim) run() error {
	s.makeGraph()
	n := 2 + s.rng.IntN(3)
	for i := 0; i < n; i++ {
		s.join()
	}
	s.sched.ClientJoined(client)
	s.at(0, "submit", func() {
		if err := s.sched.FromClient(client, &protocol.UpdateGraph{Tasks: graph.Specs(s.tasks), Keys: s.want}); err != nil {
			s.fail("submit: %v", err)
		}
		s.flushScheduler()
	})
	if s.opt.Faults {
		s.planFaults()
	}
	var quietSince time.Duration
	for s.queue.Len() > 0 && s.err == nil {
		if s.pending == 0 {
			if s.released {
				break
			}
			if s.now-quietSince > quiet {
				return fmt.Errorf("nothing but memory readings for %v with %d of %d wanted results received: a hang", quiet, len(s.got), len(s.want))
			}
		} else {
			quietSince = s.now
		}
		e := heap.Pop(&s.queue).(*event)
		if !e.periodic {
			s.pending--
		}
		s.now = e.at
		s.events++
		s.note(e.say)
		e.fn()
		s.validate()
		if s.events > s.opt.MaxEvents {
			s.fail("no end after %d events: a hang (%d of %d results received)", s.events, len(s.got), len(s.want))
		}
	}
	if s.err != nil {
		return s.err
	}
	if !s.released {
		return fmt.Errorf("the simulation went quiet with %d of %d wanted results received: a hang", len(s.got), len(s.want))
	}
	return s.checkEmpty()
}

func (s *sim) note(say string) {
	if say == "" {
		return
	}
	s.trace = append(s.trace, fmt.Sprintf("%8.3fms %s", float64(s.now)/1e6, say))
	if len(s.trace) > traceDepth {
		s.trace = s.trace[1:]
	}
}

func (s *sim) validate() {
	if err := s.sched.Validate(); err != nil {
		s.fail("scheduler: %v", err)
	}
	for _, id := range s.order {
		if w := s.workers[id]; w.alive {
			if err := w.core.Validate(); err != nil {
				s.fail("worker %s: %v", id, err)
			}
			s.checkStore(w)
		}
	}
}

// checkStore: the store holds what the core counts on, with the sizes it
// counts, and nothing else (a running task's result goes in as it ends).
func (s *sim) checkStore(w *simWorker) {
	held := w.core.Held()
	for k, n := range held {
		if v, ok := w.store[k]; !ok {
			s.fail("worker %s: the core counts on %s, which the store lacks", w.id, k)
		} else if v.n != n {
			s.fail("worker %s: the core counts %s as %d bytes, the store %d", w.id, k, n, v.n)
		}
	}
	for k := range w.store {
		if _, ok := held[k]; !ok {
			s.fail("worker %s: the store holds %s, which the core does not count", w.id, k)
		}
	}
}

// ---- the graph and its answer ----

// makeGraph draws a random graph of roots, maps, fan-ins, reductions and
// shuffles, and computes every result in order, as the reference.
func (s *sim) makeGraph() {
	prefixes := []string{"load", "map", "join", "agg"}
	n := 5 + s.rng.IntN(40)
	s.expected = map[graph.Key]uint64{}
	var keys []graph.Key
	dependents := map[graph.Key]int{}
	shuffles := 0
	for i := 0; i < n; i++ {
		if i > 3 && shuffles < 2 && s.rng.IntN(6) == 0 {
			shuffles++
			keys = append(keys, s.addShuffle(i, keys, dependents)...)
			continue
		}
		var inputs []graph.Key
		p := "load"
		if i > 2 && s.rng.IntN(4) > 0 {
			p = prefixes[1+s.rng.IntN(len(prefixes)-1)]
			for k := 1 + s.rng.IntN(min(4, i)); k > 0; k-- {
				in := keys[s.rng.IntN(len(keys))]
				if !slices.Contains(inputs, in) {
					inputs = append(inputs, in)
				}
			}
		}
		k := graph.Key(fmt.Sprintf("%s-%016x-%d", p, s.seed, i))
		t := &graph.Task{Key: k, Op: p, Args: []byte{byte(i)}, Inputs: inputs}
		s.tasks = append(s.tasks, t)
		keys = append(keys, k)
		h := fnv.New64a()
		h.Write([]byte(k))
		for _, in := range inputs {
			fmt.Fprint(h, s.expected[in])
			dependents[in]++
		}
		s.expected[k] = h.Sum64()
	}
	for _, k := range keys {
		if dependents[k] == 0 || s.rng.IntN(8) == 0 {
			s.want = append(s.want, k)
		}
	}
}

// addShuffle adds a shuffle of one or two sides over inputs drawn from
// keys, as the dataframe lowering does (transfers, a barrier, unpacks),
// computes its outputs as the reference, and returns the unpacks' keys.
func (s *sim) addShuffle(i int, keys []graph.Key, dependents map[graph.Key]int) []graph.Key {
	id := fmt.Sprintf("shuffle-%016x-%d", s.seed, i)
	outputs := 1 + s.rng.IntN(6)
	merge := ""
	if s.rng.IntN(2) == 0 {
		merge = mergeOp
	}
	sides := 1 + s.rng.IntN(2)
	sources := make([]int, sides)
	sums := make([][]uint64, outputs) // by output, by side: the pieces' sum
	for j := range sums {
		sums[j] = make([]uint64, sides)
	}
	var transfers []graph.Key
	for side := range sides {
		sources[side] = 1 + s.rng.IntN(12)
		for src := range sources[side] {
			in := keys[s.rng.IntN(len(keys))]
			dependents[in]++
			k := graph.Key(fmt.Sprintf("%s-transfer-%d-%d", id, side, src))
			s.tasks = append(s.tasks, &graph.Task{Key: k, Op: "transfer", Inputs: []graph.Key{in},
				Shuffle: &graph.Shuffle{ID: id, Role: graph.Transfer, Outputs: outputs, Side: side, Source: src, Merge: merge}})
			s.expected[k] = 0
			transfers = append(transfers, k)
			for j := range outputs {
				v, _ := pieceOf(s.expected[in], j)
				sums[j][side] += v
			}
		}
	}
	barrier := graph.Key(id + "-barrier-0")
	bt := &graph.Task{Key: barrier, Op: "barrier", Inputs: transfers,
		Shuffle: &graph.Shuffle{ID: id, Role: graph.Barrier, Outputs: outputs}}
	s.tasks = append(s.tasks, bt)
	s.expected[barrier] = compute(bt, make([]uint64, len(transfers)))
	dependents[barrier] = outputs
	var unpacks []graph.Key
	for j := range outputs {
		k := graph.Key(fmt.Sprintf("%s-unpack-%d", id, j))
		ut := &graph.Task{Key: k, Op: "unpack", Inputs: []graph.Key{barrier},
			Shuffle: &graph.Shuffle{ID: id, Role: graph.Unpack, Outputs: outputs, Part: j, Sources: sources}}
		s.tasks = append(s.tasks, ut)
		s.expected[k] = compute(ut, sums[j])
		unpacks = append(unpacks, k)
	}
	return unpacks
}

// mergeOp names the merge of a simulated shuffle: it adds pieces up, as
// the unpack does, so that results do not depend on how pieces combined.
const mergeOp = "sum"

// pieceOf is the piece a transfer of input value v sends to output part,
// and its size; a quarter of them have no rows.
func pieceOf(v uint64, part int) (uint64, int64) {
	h := fnv.New64a()
	fmt.Fprint(h, v, part)
	x := h.Sum64()
	if x%4 == 0 {
		return 0, 0
	}
	return x, int64(1 + x%(memLimit/64))
}

// compute is what a task's operation returns: the reference's rule on
// the values of its inputs.
func compute(t *graph.Task, inputs []uint64) uint64 {
	h := fnv.New64a()
	h.Write([]byte(t.Key))
	for _, v := range inputs {
		fmt.Fprint(h, v)
	}
	return h.Sum64()
}

// ---- workers ----

func (s *sim) join() {
	s.joined++
	id := protocol.WorkerID(fmt.Sprintf("w%d", s.joined))
	nthreads := 1 + s.rng.IntN(2)
	w := &simWorker{id: id, alive: true, store: map[graph.Key]*value{}, running: map[graph.Key]int{},
		grows: map[graph.Key]int64{}, spillOK: true,
		core: worker.New(worker.Config{ID: id, NThreads: nthreads, MemoryLimit: memLimit, Transfers: 2})}
	s.workers[id] = w
	s.order = append(s.order, id)
	s.sched.WorkerJoined(&protocol.HelloWorker{Version: protocol.Version, ID: id, NThreads: nthreads})
	s.flushScheduler()
	s.every(readEvery, func() { s.reading(w) })
}

// reading feeds w's core its memory: results in memory and what running
// tasks take.
func (s *sim) reading(w *simWorker) {
	if !w.alive {
		return
	}
	var managed, out, running int64
	for _, v := range w.store {
		if v.spilled {
			out += v.n
		} else {
			managed += v.n
		}
	}
	for _, g := range w.grows {
		running += g
	}
	r := worker.MemoryReading{Process: managed + running + memLimit/10, Managed: managed, Out: out}
	if !w.spillOK {
		r.SpillErr = errors.New("simulated disk full")
	}
	w.core.Memory(r)
	s.flushWorker(w)
	s.every(readEvery, func() { s.reading(w) })
}

func (s *sim) flushScheduler() {
	for _, env := range s.sched.Outbox() {
		env := env
		switch {
		case env.Worker != "":
			w := s.workers[env.Worker]
			s.send("scheduler", string(env.Worker), fmt.Sprintf("%T", env.Msg), func() { s.toWorker(w, env.Msg) })
		case env.Client != "":
			s.send("scheduler", string(env.Client), describe(env.Msg), func() { s.toClient(env.Msg) })
		}
	}
}

func (s *sim) fromWorker(w *simWorker, m protocol.Msg) {
	s.send(string(w.id), "scheduler", describe(m), func() {
		if err := s.sched.FromWorker(w.id, m); err != nil {
			s.fail("scheduler refused %T from %s: %v", m, w.id, err)
		}
		s.flushScheduler()
	})
}

func (s *sim) toWorker(w *simWorker, m protocol.Msg) {
	if w == nil || !w.alive {
		return // the stream died with the worker
	}
	switch m := m.(type) {
	case *protocol.ComputeTask:
		w.core.ComputeTask(m)
	case *protocol.FreeKeys:
		w.core.FreeKeys(m)
	case *protocol.StealRequest:
		w.core.StealRequest(m)
	case *protocol.Replicate:
		w.core.Replicate(m)
	case *protocol.Retired:
		// Nothing depends on it any more: it leaves, and the scheduler
		// sees its stream close.
		w.alive = false
		s.note(fmt.Sprintf("%s leaves", w.id))
		s.at(time.Millisecond, fmt.Sprintf("scheduler: %s is gone", w.id), func() {
			s.sched.WorkerLost(w.id)
			s.flushScheduler()
		})
		return
	case *protocol.DropShuffle:
		w.core.DropShuffle(m)
	default:
		s.fail("worker %s got an unexpected %T", w.id, m)
	}
	s.flushWorker(w)
}

// flushWorker carries out w's instructions, as its driver would.
func (s *sim) flushWorker(w *simWorker) {
	for _, in := range w.core.Outbox() {
		switch in.Kind {
		case worker.Execute:
			s.execute(w, in)
		case worker.Merge:
			s.merge(w, in.Merge)
		case worker.Gather:
			s.gather(w, in.From, in.Keys)
		case worker.Drop:
			for _, k := range in.Keys {
				delete(w.store, k)
			}
		case worker.Send:
			s.fromWorker(w, in.Msg)
		case worker.Spill:
			s.spill(w, in.Bytes)
		}
	}
}

func (s *sim) execute(w *simWorker, in worker.Instruction) {
	t := in.Task
	inputs := make([]uint64, len(t.Inputs))
	for i, k := range t.Inputs {
		v, ok := w.store[k]
		if !ok {
			s.fail("worker %s was told to run %s without its input %s in its store", w.id, t.Key, k)
			return
		}
		v.spilled = false // read back
		inputs[i] = v.v
	}
	role := graph.ShuffleRole(0)
	if t.Shuffle != nil {
		role = t.Shuffle.Role
	}
	var missing error
	if role == graph.Unpack {
		// The unpack's result: its pieces added up, per side.
		inputs = make([]uint64, len(in.Pieces))
		for side, keys := range in.Pieces {
			for _, k := range keys {
				v, ok := w.store[k]
				if !ok {
					missing = fmt.Errorf("piece %s is gone", k)
					break
				}
				v.spilled = false
				inputs[side] += v.v
			}
		}
	}
	w.runs++
	run := w.runs
	w.running[t.Key] = run
	w.grows[t.Key] = int64(s.rng.IntN(memLimit / 4))
	d := time.Duration(1+s.rng.IntN(50)) * time.Millisecond
	current := func() bool { return w.alive && w.running[t.Key] == run }
	finish := func(v uint64, err error) {
		delete(w.running, t.Key)
		grew := w.grows[t.Key]
		delete(w.grows, t.Key)
		if err != nil {
			w.core.ExecuteFailed(t.Key, &protocol.TaskError{Kind: protocol.Retry, Key: t.Key, Worker: w.id, Message: err.Error()})
		} else {
			n := int64(1 + s.rng.IntN(memLimit/8))
			if role == graph.Transfer {
				n = 8 // a transfer's result is a token: its pieces went out
			}
			w.store[t.Key] = &value{v: v, n: n}
			w.core.ExecuteDone(t.Key, worker.Ran{Nbytes: n, Took: d, Grew: grew})
		}
		s.flushWorker(w)
	}
	s.at(d, fmt.Sprintf("%s ran %s", w.id, t.Key), func() {
		switch {
		case !current():
		case role == graph.Transfer:
			s.transfer(w, t, in.Shuffle, inputs[0], func(err error) {
				if current() {
					finish(0, err)
				}
			})
		case missing != nil:
			finish(0, missing)
		default:
			finish(compute(t, inputs), nil)
		}
	})
}

// transfer pushes the pieces of input value v to the workers that assemble
// their outputs, one push per worker, and calls done once each was taken
// or refused (a worker gone), as a transfer's pushes are calls.
func (s *sim) transfer(w *simWorker, t *graph.Task, run *protocol.ShuffleRun, v uint64, done func(error)) {
	spec := t.Shuffle
	dests := run.Destinations(spec.Outputs)
	if len(dests) == 0 {
		s.at(time.Millisecond, fmt.Sprintf("%s: nothing to push", w.id), func() { done(nil) })
		return
	}
	left := len(dests)
	var failed error
	for _, d := range dests {
		owner, peer := d.Owner, s.workers[d.Owner]
		p := &protocol.ShufflePush{ID: run.ID, Run: d.Gen, Side: spec.Side, Source: spec.Source, Merge: spec.Merge, Parts: d.Parts}
		var sizes []worker.Size
		for _, part := range d.Parts {
			pv, n := pieceOf(v, part)
			if n == 0 {
				p.Values = append(p.Values, nil)
			} else {
				p.Values = append(p.Values, &value{v: pv, n: n})
			}
			sizes = append(sizes, worker.Size{Bytes: n, Rows: -1}) // judged by bytes
		}
		answer := func(err error) {
			if err != nil && failed == nil {
				failed = err
			}
			if left--; left == 0 {
				done(failed)
			}
		}
		s.send(string(w.id), string(owner), fmt.Sprintf("push %s r%d s%d/%d", p.ID, p.Run, p.Side, p.Source), func() {
			if peer == nil || !peer.alive {
				s.at(time.Millisecond, fmt.Sprintf("%s: push to %s refused", w.id, owner), func() {
					answer(fmt.Errorf("push pieces of shuffle %s to worker %s: gone", p.ID, owner))
				})
				return
			}
			for i, k := range peer.core.ShufflePush(p, sizes) {
				if k != "" {
					peer.store[k] = p.Values[i].(*value)
				}
			}
			s.flushWorker(peer)
			s.send(string(owner), string(w.id), "pushed", func() { answer(nil) })
		})
	}
}

// merge combines pieces after a while, as a driver does: their sum, about
// the size of the largest.
func (s *sim) merge(w *simWorker, j *worker.MergeJob) {
	s.at(time.Duration(1+s.rng.IntN(5))*time.Millisecond, fmt.Sprintf("%s merged into %s", w.id, j.Key), func() {
		if !w.alive {
			return
		}
		var sum uint64
		var n int64
		var err error
		for _, k := range j.Inputs {
			v, ok := w.store[k]
			if !ok {
				err = fmt.Errorf("piece %s is gone", k)
				break
			}
			v.spilled = false
			sum += v.v
			n = max(n, v.n)
		}
		if err == nil {
			w.store[j.Key] = &value{v: sum, n: n}
		}
		w.core.MergeDone(j, worker.Size{Bytes: n, Rows: -1}, err)
		s.flushWorker(w)
	})
}

// gather fetches keys from a peer over two streams: the request there, the
// data back.
func (s *sim) gather(w *simWorker, from protocol.WorkerID, keys []graph.Key) {
	peer := s.workers[from]
	s.send(string(w.id), string(from), fmt.Sprintf("get %v", keys), func() {
		if peer == nil || !peer.alive {
			s.at(time.Millisecond, fmt.Sprintf("%s: %s unreachable", w.id, from), func() { s.gathered(w, from, nil, true) })
			return
		}
		got := map[graph.Key]*value{}
		for _, k := range keys {
			if v, ok := peer.store[k]; ok {
				c := *v
				c.spilled = false
				got[k] = &c
			}
		}
		s.send(string(from), string(w.id), fmt.Sprintf("data %d of %d", len(got), len(keys)), func() {
			s.gathered(w, from, got, false)
		})
	})
}

func (s *sim) gathered(w *simWorker, from protocol.WorkerID, got map[graph.Key]*value, unreachable bool) {
	if !w.alive {
		return
	}
	sizes := map[graph.Key]int64{}
	for k, v := range got {
		w.store[k] = v
		sizes[k] = v.n
	}
	w.core.GatherDone(from, sizes, unreachable)
	s.flushWorker(w)
}

// spill moves results to disk, in key order, until at most keep bytes stay
// in memory; a failing disk refuses.
func (s *sim) spill(w *simWorker, keep int64) {
	if !w.spillOK {
		return
	}
	keys := make([]graph.Key, 0, len(w.store))
	var managed int64
	for k, v := range w.store {
		if !v.spilled {
			keys = append(keys, k)
			managed += v.n
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if managed <= keep {
			break
		}
		w.store[k].spilled = true
		managed -= w.store[k].n
	}
}

// ---- the client ----

func (s *sim) toClient(m protocol.Msg) {
	switch m := m.(type) {
	case *protocol.KeyInMemory:
		if s.released || !slices.Contains(s.want, m.Key) {
			return
		}
		for _, id := range m.WhoHas {
			if w := s.workers[id]; w != nil && w.alive {
				if v, ok := w.store[m.Key]; ok {
					s.received(m.Key, v.v)
					return
				}
			}
		}
		// Nowhere to be found: tell the scheduler, which recomputes it.
		from := protocol.WorkerID("")
		if len(m.WhoHas) > 0 {
			from = m.WhoHas[0]
		}
		s.send(string(client), "scheduler", "missing "+string(m.Key), func() {
			if err := s.sched.FromClient(client, &protocol.MissingData{Key: m.Key, From: from, Run: m.Run}); err != nil {
				s.fail("client missing data: %v", err)
			}
			s.flushScheduler()
		})
	case *protocol.KeyErred:
		s.fail("%s erred: %s", m.Key, m.Err.Message)
	}
}

func (s *sim) received(k graph.Key, v uint64) {
	if v != s.expected[k] {
		s.fail("%s is %d, but the sequential computation gives %d", k, v, s.expected[k])
		return
	}
	s.got[k] = v
	if len(s.got) < len(s.want) {
		return
	}
	if s.opt.Twice && !s.second {
		s.second = true
		s.got = map[graph.Key]uint64{}
		s.send(string(client), "scheduler", "release all, submit again", func() {
			if err := s.sched.FromClient(client, &protocol.ReleaseKeys{Keys: s.want}); err != nil {
				s.fail("release: %v", err)
			}
			if err := s.sched.FromClient(client, &protocol.UpdateGraph{Tasks: graph.Specs(s.tasks), Keys: s.want}); err != nil {
				s.fail("submit again: %v", err)
			}
			s.flushScheduler()
		})
		return
	}
	s.released = true
	s.send(string(client), "scheduler", "release all", func() {
		if err := s.sched.FromClient(client, &protocol.ReleaseKeys{Keys: s.want}); err != nil {
			s.fail("release: %v", err)
		}
		s.flushScheduler()
	})
}

// checkEmpty: once the client released everything, nothing is left.
func (s *sim) checkEmpty() error {
	var errs []error
	for _, info := range s.sched.Workers() {
		if info.Held != 0 || info.Processing != 0 {
			errs = append(errs, fmt.Errorf("scheduler: worker %s still holds %d bytes and processes %d tasks", info.ID, info.Held, info.Processing))
		}
	}
	for _, id := range s.order {
		w := s.workers[id]
		if w.alive && len(w.store) > 0 {
			keys := make([]string, 0, len(w.store))
			for k := range w.store {
				keys = append(keys, string(k))
			}
			slices.Sort(keys)
			errs = append(errs, fmt.Errorf("worker %s still holds %v after the client released everything", id, keys))
		}
	}
	return errors.Join(errs...)
}

// ---- faults ----

// planFaults draws the faults of a run: workers lost at random moments
// (some replaced), spills failing for a while, memory pushed past the
// pause threshold for a while.
func (s *sim) planFaults() {
	for i := s.rng.IntN(3); i > 0; i-- {
		at := time.Duration(s.rng.IntN(400)) * time.Millisecond
		s.at(at, "", func() { s.loseOne() })
	}
	if s.rng.IntN(3) == 0 {
		at := time.Duration(s.rng.IntN(400)) * time.Millisecond
		s.at(at, "", func() { s.retireOne() })
	}
	for i := s.rng.IntN(3); i > 0; i-- {
		at := time.Duration(s.rng.IntN(400)) * time.Millisecond
		s.at(at, "", func() {
			if id, ok := s.anyAlive(); ok {
				w := s.workers[id]
				w.spillOK = false
				s.note(fmt.Sprintf("%s: its disk fails", id))
				s.at(time.Duration(1+s.rng.IntN(300))*time.Millisecond, fmt.Sprintf("%s: its disk works again", id), func() { w.spillOK = true })
			}
		})
	}
	for i := s.rng.IntN(3); i > 0; i-- {
		at := time.Duration(s.rng.IntN(400)) * time.Millisecond
		s.at(at, "", func() {
			if id, ok := s.anyAlive(); ok {
				w := s.workers[id]
				k := graph.Key(fmt.Sprintf("ballast-%d", s.seq))
				w.grows[k] = memLimit * 9 / 10 // another program's memory, for a while
				s.note(fmt.Sprintf("%s: memory pushed up", id))
				s.at(time.Duration(1+s.rng.IntN(300))*time.Millisecond, fmt.Sprintf("%s: memory down again", id), func() { delete(w.grows, k) })
			}
		})
	}
}

// loseOne kills a live worker (never the last one staying: a run with no
// worker would wait for one, as a real cluster does); the scheduler hears of it
// after a detection delay; half the time a new worker joins later.
func (s *sim) loseOne() {
	id, ok := s.anyAlive()
	if !ok || s.staying() < 2 && !s.workers[id].retiring {
		return
	}
	w := s.workers[id]
	w.alive = false
	s.lost++
	s.note(fmt.Sprintf("%s dies", id))
	s.at(time.Duration(1+s.rng.IntN(20))*time.Millisecond, fmt.Sprintf("scheduler: %s is lost", id), func() {
		s.sched.WorkerLost(id)
		s.flushScheduler()
	})
	if s.rng.IntN(2) == 0 {
		s.at(time.Duration(1+s.rng.IntN(100))*time.Millisecond, "a worker joins", func() { s.join() })
	}
}

// retireOne has a live worker ask to leave, as `dusk worker` does on
// SIGTERM: the scheduler copies what only it holds elsewhere and then lets
// it go (never the last one).
func (s *sim) retireOne() {
	id, ok := s.anyAlive()
	if !ok || s.staying() < 2 || s.workers[id].retiring {
		return
	}
	s.workers[id].retiring = true
	s.note(fmt.Sprintf("%s asks to retire", id))
	s.fromWorker(s.workers[id], &protocol.Retire{})
}

// staying counts the live workers that are not retiring.
func (s *sim) staying() int {
	n := 0
	for _, id := range s.order {
		if w := s.workers[id]; w.alive && !w.retiring {
			n++
		}
	}
	return n
}

func (s *sim) anyAlive() (protocol.WorkerID, bool) {
	var alive []protocol.WorkerID
	for _, id := range s.order {
		if s.workers[id].alive {
			alive = append(alive, id)
		}
	}
	if len(alive) == 0 {
		return "", false
	}
	return alive[s.rng.IntN(len(alive))], true
}

func describe(m protocol.Msg) string {
	switch m := m.(type) {
	case *protocol.TaskFinished:
		return "finished " + string(m.Key)
	case *protocol.TaskErred:
		return "erred " + string(m.Key)
	case *protocol.KeyInMemory:
		return fmt.Sprintf("in-memory %s %v", m.Key, m.WhoHas)
	case *protocol.MissingData:
		return fmt.Sprintf("missing %s from %s", m.Key, m.From)
	}
	return fmt.Sprintf("%T", m)
}
