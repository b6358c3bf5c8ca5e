package worker

import (
	"fmt"
	"maps"
	"slices"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// The worker's side of peer-to-peer shuffles (graph.Shuffle), as decisions:
// which pieces a push delivers are kept and under which store keys, which
// runs are stale (fencing: a piece of a run older than one seen, or of a run
// dropped, is let go), which pieces are combined as they arrive and when,
// what an unpack gets, and what is dropped when. The driver moves the
// values: it stores a push's pieces under the keys ShufflePush returns,
// runs Merge instructions, and hands an unpack the pieces its Execute
// instruction names.

// mergeFanIn is how many sources of one side the worker assembling an
// output combines at a time, in source order, into the piece combined so
// far, once all of them have arrived: an order fixed whatever order the
// pieces come in, so that results (floating-point sums) are the same from
// run to run. Combining stops where it does not halve the pieces' rows
// (every row its own group): going on would re-read the combined piece for
// nothing.
const mergeFanIn = 8

// Size is what a piece holds: its bytes in memory, which the worker
// accounts, and its rows, by which a merge is judged; Rows is -1 where
// the value has none to count (the merge is then judged by its bytes).
// Bytes alone misjudge merges whose pieces are lighter than what they
// become: an aggregation's partial rows carry their count of one a row in
// no buffer, the merged groups in eight bytes each, so merging 20,000
// rows into 8,600 groups (db-benchmark's q3 at 5e8 rows, 500 outputs)
// shrank the rows by more than half but not the bytes, and the combining
// stopped: every output then held all its pieces until its unpack.
type Size struct {
	Bytes int64
	Rows  int64
}

// plus is a and b together; rows uncounted in either are uncounted.
func (a Size) plus(b Size) Size {
	rows := a.Rows + b.Rows
	if a.Rows < 0 || b.Rows < 0 {
		rows = -1
	}
	return Size{Bytes: a.Bytes + b.Bytes, Rows: rows}
}

// shrunk reports whether a merge of in made out by at least half: by
// rows where both are counted, else by bytes.
func shrunk(in, out Size) bool {
	if in.Rows >= 0 && out.Rows >= 0 {
		return out.Rows*2 <= in.Rows
	}
	return out.Bytes*2 <= in.Bytes
}

// droppedKept bounds how many dropped shuffles the worker remembers, so as
// to let go of the pieces that arrive late for them (from a transfer whose
// push was under way as its run was dropped).
const droppedKept = 1024

// MergeJob asks the driver to combine pieces of one output of a shuffle:
// run the operation Op (arguments Args) on the values under Inputs, in
// order, keep the result under Key, and report with MergeDone.
type MergeJob struct {
	ID     string
	Run    uint64
	Part   int
	Side   int
	Op     string
	Args   []byte
	Inputs []graph.Key
	Key    graph.Key
	upTo   int  // the sources combined once it is done: [0, upTo)
	in     Size // of Inputs together
}

// partKey names one output partition of a shuffle, across its runs.
type partKey struct {
	id   string
	part int
}

// outputKey names one output of one run of a shuffle.
type outputKey struct {
	id   string
	run  uint64
	part int
}

// piece is a value the worker holds for an output: key "" for a piece
// without rows, or one combined into a merged piece since.
type piece struct {
	key graph.Key
	Size
}

// output is what has arrived for one output partition of one run.
type output struct {
	got     map[[2]int]piece // {side, source} → its piece
	merged  map[int]*merged  // by side: the piece its first sources were combined into
	op      string           // how pieces are combined ("": they are not)
	args    []byte
	merging *MergeJob // the merge under way, if any
	waiting *task     // an unpack that waits for the merge under way to end
	taken   *task     // the unpack that took the pieces and runs
	done    bool      // unpacked: pieces that arrive late are let go
}

// merged is the piece sources [0, n) of one side were combined into;
// stopped: combining stopped, as it did not shrink the pieces or failed.
type merged struct {
	piece
	n       int
	stopped bool
}

// shuffles is the core's record of the shuffles' pieces on this worker.
type shuffles struct {
	newest  map[partKey]uint64 // the latest run seen of each output
	dropped map[string]uint64  // runs up to this one were dropped
	order   []string           // dropped's keys, oldest first
	outputs map[outputKey]*output
}

func (sh *shuffles) init() {
	if sh.outputs == nil {
		sh.newest, sh.dropped, sh.outputs = map[partKey]uint64{}, map[string]uint64{}, map[outputKey]*output{}
	}
}

// ShufflePush takes note of the pieces a transfer pushed to this worker,
// sizes[i] that of p.Values[i], and returns the store key under which
// the driver keeps each, "" for those to let go: pieces without rows, of a
// stale run, of an output already unpacked, or delivered before. The first
// piece of an output given out in a newer run drops the output's pieces of
// older runs; other outputs keep theirs (a restart keeps what it can).
func (s *State) ShufflePush(p *protocol.ShufflePush, sizes []Size) []graph.Key {
	sh := &s.sh
	sh.init()
	keys := make([]graph.Key, len(p.Parts))
	if p.Run <= sh.dropped[p.ID] {
		return keys
	}
	var touched []outputKey
	for i, part := range p.Parts {
		pk := partKey{p.ID, part}
		if p.Run < sh.newest[pk] {
			continue // stale
		}
		if p.Run > sh.newest[pk] {
			s.dropOutputs(func(k outputKey) bool { return k.id == p.ID && k.part == part && k.run < p.Run })
			sh.newest[pk] = p.Run
		}
		k := outputKey{p.ID, p.Run, part}
		o := sh.outputs[k]
		if o == nil {
			o = &output{got: map[[2]int]piece{}, merged: map[int]*merged{}, op: p.Merge, args: p.MergeArgs}
			sh.outputs[k] = o
		}
		src := [2]int{p.Side, p.Source}
		if _, ok := o.got[src]; ok || o.done || o.merged[p.Side] != nil && p.Source < o.merged[p.Side].n {
			continue // delivered before, or late
		}
		pc := piece{}
		if p.Values[i] != nil {
			pc = piece{pieceKey(p, part), sizes[i]}
			keys[i] = pc.key
			s.held(pc.Bytes)
		}
		o.got[src] = pc
		touched = append(touched, k)
	}
	for _, k := range touched {
		s.mergeNext(k, sh.outputs[k], p.Side)
	}
	s.schedule()
	return keys
}

func pieceKey(p *protocol.ShufflePush, part int) graph.Key {
	return graph.Key(fmt.Sprintf("shuffle-%s-r%d-p%d-s%d-%d", p.ID, p.Run, part, p.Side, p.Source))
}

// mergeNext starts combining the next mergeFanIn sources of o's side if
// all of them have arrived and nothing stands in the way: a merge under
// way, an unpack that runs, or combining that stopped. Runs of fewer than
// two pieces with rows need no merge and are done at once.
func (s *State) mergeNext(k outputKey, o *output, side int) {
	for o.op != "" && o.merging == nil && o.taken == nil && !o.done {
		m := o.merged[side]
		if m == nil {
			m = &merged{}
		}
		if m.stopped {
			return
		}
		var inputs []piece
		if m.key != "" {
			inputs = append(inputs, m.piece)
		}
		for src := m.n; src < m.n+mergeFanIn; src++ {
			pc, ok := o.got[[2]int{side, src}]
			if !ok {
				return
			}
			if pc.key != "" {
				inputs = append(inputs, pc)
			}
		}
		upTo := m.n + mergeFanIn
		if len(inputs) < 2 {
			next := &merged{n: upTo}
			if len(inputs) == 1 {
				next.piece = inputs[0]
			}
			s.combined(o, side, next)
			continue
		}
		j := &MergeJob{ID: k.id, Run: k.run, Part: k.part, Side: side, Op: o.op, Args: o.args, upTo: upTo,
			Key: graph.Key(fmt.Sprintf("shuffle-%s-r%d-p%d-s%d-m%d", k.id, k.run, k.part, side, upTo))}
		for _, pc := range inputs {
			j.Inputs = append(j.Inputs, pc.key)
			j.in = j.in.plus(pc.Size)
		}
		o.merging = j
		s.out = append(s.out, Instruction{Kind: Merge, Merge: j})
	}
}

// combined records that side's sources up to next.n are in next's piece
// and drops the pieces combined into it.
func (s *State) combined(o *output, side int, next *merged) {
	var drop []graph.Key
	if m := o.merged[side]; m != nil && m.key != "" && m.key != next.key {
		drop = append(drop, m.key)
		s.mem.managed -= m.Bytes
	}
	from := 0
	if m := o.merged[side]; m != nil {
		from = m.n
	}
	for src := from; src < next.n; src++ {
		pc := o.got[[2]int{side, src}]
		if pc.key != "" && pc.key != next.key {
			drop = append(drop, pc.key)
			s.mem.managed -= pc.Bytes
		}
		delete(o.got, [2]int{side, src})
	}
	o.merged[side] = next
	if len(drop) > 0 {
		s.out = append(s.out, Instruction{Kind: Drop, Keys: drop})
	}
}

// MergeDone records a merge the driver ran: its result is in the store
// under j.Key with size, or err says why it failed (then the unpack
// takes the pieces as they are, and says what fails). Combining stops when
// the result has not half the rows of what it combined (shrunk).
func (s *State) MergeDone(j *MergeJob, size Size, err error) {
	k := outputKey{j.ID, j.Run, j.Part}
	o := s.sh.outputs[k]
	if o == nil || o.merging != j {
		if err == nil {
			s.out = append(s.out, Instruction{Kind: Drop, Keys: []graph.Key{j.Key}})
		}
		return
	}
	o.merging = nil
	if err != nil {
		m := o.merged[j.Side]
		if m == nil {
			m = &merged{}
			o.merged[j.Side] = m
		}
		m.stopped = true
	} else {
		s.held(size.Bytes)
		s.combined(o, j.Side, &merged{piece: piece{j.Key, size}, n: j.upTo, stopped: !shrunk(j.in, size)})
	}
	s.mergeAll(k, o, j.Side)
	if t := o.waiting; t != nil && o.merging == nil {
		// Every run of sources that has arrived is combined: the unpack
		// gets the pieces in the shape their sources fix.
		o.waiting = nil
		s.makeReady(t)
	}
	s.schedule()
}

// mergeAll starts the next merge of o, side first, then the other sides.
func (s *State) mergeAll(k outputKey, o *output, side int) {
	s.mergeNext(k, o, side)
	for _, other := range slices.Sorted(maps.Keys(o.merged)) {
		s.mergeNext(k, o, other)
	}
}

// DropShuffle lets go of the pieces of shuffle m.ID's runs up to m.Run:
// the shuffle started again, or is over. Pieces of those runs that arrive
// later are let go too.
func (s *State) DropShuffle(m *protocol.DropShuffle) {
	sh := &s.sh
	sh.init()
	s.dropOutputs(func(k outputKey) bool { return k.id == m.ID && k.run <= m.Run })
	maps.DeleteFunc(sh.newest, func(k partKey, run uint64) bool { return k.id == m.ID && run <= m.Run })
	if m.Run > sh.dropped[m.ID] {
		if _, ok := sh.dropped[m.ID]; !ok {
			sh.order = append(sh.order, m.ID)
			if len(sh.order) > droppedKept {
				delete(sh.dropped, sh.order[0])
				sh.order = sh.order[1:]
			}
		}
		sh.dropped[m.ID] = m.Run
	}
	s.schedule()
}

// dropOutputs lets go of the outputs that which picks. An unpack waiting
// for one of their merges is made ready: it fails, as its pieces are gone,
// and the scheduler starts the shuffle again.
func (s *State) dropOutputs(which func(outputKey) bool) {
	var drop []graph.Key
	for _, k := range slices.SortedFunc(maps.Keys(s.sh.outputs), compareOutputs) {
		o := s.sh.outputs[k]
		if !which(k) {
			continue
		}
		drop = append(drop, s.letGo(o)...)
		delete(s.sh.outputs, k)
		if t := o.waiting; t != nil {
			o.waiting = nil
			s.makeReady(t)
		}
	}
	if len(drop) > 0 {
		s.out = append(s.out, Instruction{Kind: Drop, Keys: drop})
	}
}

func compareOutputs(a, b outputKey) int {
	if a.id != b.id {
		if a.id < b.id {
			return -1
		}
		return 1
	}
	if a.run != b.run {
		return int(a.run) - int(b.run)
	}
	return a.part - b.part
}

// letGo forgets o's pieces and returns their store keys to drop.
func (s *State) letGo(o *output) []graph.Key {
	var keys []graph.Key
	for _, src := range slices.SortedFunc(maps.Keys(o.got), compareSources) {
		if pc := o.got[src]; pc.key != "" {
			keys = append(keys, pc.key)
			s.mem.managed -= pc.Bytes
		}
	}
	for _, side := range slices.Sorted(maps.Keys(o.merged)) {
		if m := o.merged[side]; m.key != "" {
			keys = append(keys, m.key)
			s.mem.managed -= m.Bytes
		}
	}
	clear(o.got)
	clear(o.merged)
	return keys
}

func compareSources(a, b [2]int) int {
	if a[0] != b[0] {
		return a[0] - b[0]
	}
	return a[1] - b[1]
}

// isUnpack reports whether t assembles an output of a shuffle.
func isUnpack(t *task) bool {
	return t.spec != nil && t.spec.Shuffle != nil && t.spec.Shuffle.Role == graph.Unpack && t.shuffle != nil
}

// isTransfer reports whether t sends pieces of a shuffle.
func isTransfer(t *task) bool {
	return t.spec != nil && t.spec.Shuffle != nil && t.spec.Shuffle.Role == graph.Transfer && t.shuffle != nil
}

// outputOf is the output unpack t assembles, or nil if nothing of it is here.
func (s *State) outputOf(t *task) *output {
	return s.sh.outputs[outputKeyOf(t)]
}

// outputKeyOf names the output unpack t assembles.
func outputKeyOf(t *task) outputKey {
	part := t.spec.Shuffle.Part
	return outputKey{t.shuffle.ID, t.shuffle.Gen(part), part}
}

// holdUnpack parks unpack t, about to start, while a merge of its output
// is under way: it starts once the merge ends, so that it gets the pieces
// combined in the order fixed by their sources.
func (s *State) holdUnpack(t *task) bool {
	if !isUnpack(t) {
		return false
	}
	o := s.outputOf(t)
	if o == nil || o.merging == nil {
		return false
	}
	t.state = Waiting
	o.waiting = t
	return true
}

// unpackPieces returns the store keys of unpack t's pieces, per side in
// order of source, and marks them taken; or, when sources did not deliver,
// an error saying how many (the scheduler starts the shuffle again).
func (s *State) unpackPieces(t *task) ([][]graph.Key, error) {
	spec := t.spec.Shuffle
	o := s.outputOf(t)
	keys := make([][]graph.Key, len(spec.Sources))
	missing := 0
	for side, n := range spec.Sources {
		from := 0
		if m := o.mergedOf(side); m != nil {
			from = m.n
			if m.key != "" {
				keys[side] = append(keys[side], m.key)
			}
		}
		for src := from; src < n; src++ {
			pc, ok := piece{}, false
			if o != nil {
				pc, ok = o.got[[2]int{side, src}]
			}
			switch {
			case !ok:
				missing++
			case pc.key != "":
				keys[side] = append(keys[side], pc.key)
			}
		}
	}
	if missing > 0 {
		return nil, fmt.Errorf("output %d of shuffle %s (run %d) lacks the pieces of %d transfers",
			spec.Part, t.shuffle.ID, t.shuffle.Gen(spec.Part), missing)
	}
	if o != nil {
		o.taken = t
	}
	return keys, nil
}

// mergedOf is side's combined piece in o, if any (o may be nil).
func (o *output) mergedOf(side int) *merged {
	if o == nil {
		return nil
	}
	return o.merged[side]
}

// unpackEnded lets go of unpack t's pieces once it has run (ok), and gives
// them back to the output when it failed: the scheduler may try again.
func (s *State) unpackEnded(t *task, ok bool) {
	if !isUnpack(t) {
		return
	}
	o := s.outputOf(t)
	if o == nil || o.taken != t {
		return
	}
	o.taken = nil
	if !ok {
		s.mergeAll(outputKeyOf(t), o, 0)
		return
	}
	o.done = true
	if drop := s.letGo(o); len(drop) > 0 {
		s.out = append(s.out, Instruction{Kind: Drop, Keys: drop})
	}
}

// unparkUnpack forgets that t, being forgotten, waited for a merge.
func (s *State) unparkUnpack(t *task) {
	if t.state != Waiting || !isUnpack(t) {
		return
	}
	if o := s.outputOf(t); o != nil && o.waiting == t {
		o.waiting = nil
	}
}

// validateShuffles checks the shuffles' records: no output of a run
// dropped or older than the newest seen, a merge under way only on an
// output not unpacked, an unpack waiting only for a merge under way and
// itself waiting, and an unpack holding the pieces only while it runs.
func (s *State) validateShuffles(bad func(string, ...any)) {
	for k, o := range s.sh.outputs {
		if newest := s.sh.newest[partKey{k.id, k.part}]; k.run <= s.sh.dropped[k.id] || k.run < newest {
			bad("output %d of shuffle %s is kept for run %d, stale (newest %d, dropped up to %d)",
				k.part, k.id, k.run, newest, s.sh.dropped[k.id])
		}
		if o.waiting != nil && (o.merging == nil || s.tasks[o.waiting.key] != o.waiting || o.waiting.state != Waiting) {
			bad("output %d of shuffle %s has unpack %s waiting for no merge, or not waiting", k.part, k.id, o.waiting.key)
		}
		if o.taken != nil && (s.tasks[o.taken.key] != o.taken || o.taken.state != Executing) {
			bad("output %d of shuffle %s was taken by unpack %s, which is not executing", k.part, k.id, o.taken.key)
		}
		if o.done && (len(o.got) > 0 || len(o.merged) > 0 || o.merging != nil) {
			bad("output %d of shuffle %s was unpacked but keeps pieces", k.part, k.id)
		}
		for src := range o.got {
			if m := o.merged[src[0]]; m != nil && src[1] < m.n {
				bad("output %d of shuffle %s keeps source %v, combined already", k.part, k.id, src)
			}
		}
	}
}
