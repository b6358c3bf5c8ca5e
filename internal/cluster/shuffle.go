package cluster

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/worker/store"
)

// pushers bounds how many workers one transfer pushes to at once.
const pushers = 4

// shuffles is a worker's side of the peer-to-peer shuffles (graph.Shuffle):
// it keeps the pieces pushed to it in the worker's store, where they count
// as managed memory and spill like results, combines them as they arrive
// where the shuffle says how (graph.Shuffle.Merge), and hands them to
// unpacks.
type shuffles struct {
	ctx   context.Context
	store *store.Store

	mu     sync.Mutex
	newest map[string]uint64 // the latest run seen of each shuffle
	parts  map[outputKey]*output
}

// outputKey names one output of one run.
type outputKey struct {
	id   string
	run  uint64
	part int
}

// output is what has arrived for one output partition: which sources of
// each side delivered, and the store keys of their non-empty pieces.
type output struct {
	got  map[[2]int]graph.Key // {side, source} → store key ("" for an empty piece, or one merged)
	done bool                 // unpacked: late pieces are dropped

	// merging is held while a merge of this output runs, and by an unpack
	// taking its pieces; merged holds each side's combined pieces.
	merging sync.Mutex
	merged  map[int]*mergedRun
}

// mergedRun is the piece that sources [0, n) of one side were combined
// into (key "" while none had rows); stopped: combining stopped, as it
// did not shrink the pieces or failed.
type mergedRun struct {
	key     graph.Key
	n       int
	stopped bool
}

// The worker assembling an output combines a side's pieces in source order,
// mergeFanIn sources at a time into the piece combined so far, once all of
// them have arrived: an order fixed whatever order the pieces come in, so
// that results (floating-point sums) are the same from run to run. It stops
// where combining does not halve the pieces' size (every row its own group),
// where going on would re-read the combined piece for nothing.
const mergeFanIn = 8

func newShuffles(ctx context.Context, store *store.Store) *shuffles {
	return &shuffles{ctx: ctx, store: store, newest: map[string]uint64{}, parts: map[outputKey]*output{}}
}

// receive keeps the pieces of a push, which it owns. Pieces of a run older
// than one seen are dropped; the first piece of a newer run drops the older.
func (sh *shuffles) receive(p *protocol.ShufflePush) {
	keys := make([]graph.Key, len(p.Parts))
	sh.mu.Lock()
	var stale []graph.Key
	if p.Run > sh.newest[p.ID] {
		stale = sh.dropLocked(p.ID, p.Run-1)
		sh.newest[p.ID] = p.Run
	}
	current := p.Run == sh.newest[p.ID]
	if current {
		for i, part := range p.Parts {
			k := outputKey{p.ID, p.Run, part}
			o := sh.parts[k]
			if o == nil {
				o = &output{got: map[[2]int]graph.Key{}, merged: map[int]*mergedRun{}}
				sh.parts[k] = o
			}
			if m := o.merged[p.Side]; m != nil && p.Source < m.n {
				continue // combined already: a piece delivered again
			}
			if p.Values[i] != nil && !o.done {
				keys[i] = pieceKey(p, part)
			}
			o.got[[2]int{p.Side, p.Source}] = keys[i]
		}
	}
	sh.mu.Unlock()
	sh.deleteAll(stale)
	for i, v := range p.Values {
		if v == nil {
			continue
		}
		if keys[i] == "" {
			registry.Release(v)
			continue
		}
		sh.store.Put(keys[i], v)
	}
	// A drop may have come while the pieces went in: take those out again.
	var orphans []graph.Key
	sh.mu.Lock()
	for i, part := range p.Parts {
		if keys[i] == "" {
			continue
		}
		if o := sh.parts[outputKey{p.ID, p.Run, part}]; o == nil || o.got[[2]int{p.Side, p.Source}] != keys[i] {
			orphans = append(orphans, keys[i])
		}
	}
	sh.mu.Unlock()
	sh.deleteAll(orphans)
	if p.Merge != "" && current {
		for _, part := range p.Parts {
			sh.merge(p, outputKey{p.ID, p.Run, part})
		}
	}
}

// merge combines the pieces of output k's side that p delivered to, in
// runs of mergeFanIn sources, while whole runs have arrived.
func (sh *shuffles) merge(p *protocol.ShufflePush, k outputKey) {
	sh.mu.Lock()
	o := sh.parts[k]
	sh.mu.Unlock()
	if o == nil {
		return
	}
	o.merging.Lock()
	defer o.merging.Unlock()
	for sh.mergeNext(p, k, o) {
	}
}

// mergeNext combines the next run of sources of o's side, if all of them
// have arrived, reporting whether it did.
func (sh *shuffles) mergeNext(p *protocol.ShufflePush, k outputKey, o *output) bool {
	sh.mu.Lock()
	m := o.merged[p.Side]
	if m == nil {
		m = &mergedRun{}
	}
	var keys []graph.Key
	if m.key != "" {
		keys = append(keys, m.key)
	}
	for src := m.n; src < m.n+mergeFanIn; src++ {
		key, ok := o.got[[2]int{p.Side, src}]
		if !ok || o.done || m.stopped || sh.parts[k] != o {
			sh.mu.Unlock()
			return false
		}
		if key != "" {
			keys = append(keys, key)
		}
	}
	sh.mu.Unlock()

	next := &mergedRun{n: m.n + mergeFanIn}
	switch len(keys) {
	case 0:
	case 1:
		next.key = keys[0]
	default:
		next.key = graph.Key(fmt.Sprintf("shuffle-%s-r%d-p%d-s%d-m%d", k.id, k.run, k.part, p.Side, next.n))
		v, in, err := sh.combine(p, next.key, keys)
		if err != nil {
			// The unpack combines the pieces as they are, and says what fails.
			sh.mu.Lock()
			m.stopped = true
			o.merged[p.Side] = m
			sh.mu.Unlock()
			return false
		}
		next.stopped = store.SizeOf(v)*2 > in
		sh.store.Put(next.key, v)
	}
	sh.mu.Lock()
	if o.done || sh.parts[k] != o {
		sh.mu.Unlock()
		if next.key != "" && len(keys) > 1 {
			sh.store.Delete(next.key)
		}
		return false
	}
	for src := m.n; src < next.n; src++ {
		o.got[[2]int{p.Side, src}] = ""
	}
	o.merged[p.Side] = next
	sh.mu.Unlock()
	if len(keys) > 1 {
		sh.deleteAll(keys)
	}
	return true
}

// combine runs p's merge operation on the pieces under keys, returning the
// combined piece and the size of what it combined.
func (sh *shuffles) combine(p *protocol.ShufflePush, key graph.Key, keys []graph.Key) (any, int64, error) {
	op, err := registry.Lookup(p.Merge)
	if err != nil {
		return nil, 0, err
	}
	inputs := make([]any, 0, len(keys))
	defer func() {
		for _, v := range inputs {
			registry.Release(v)
		}
	}()
	var in int64
	for _, k := range keys {
		v, ok, err := sh.store.Get(k)
		if err != nil || !ok {
			return nil, 0, fmt.Errorf("piece %s is gone: %v", k, err)
		}
		inputs = append(inputs, v)
		in += store.SizeOf(v)
	}
	// The pieces come as an unpack's of one side, and as inputs.
	v, err := op(&registry.Context{Context: sh.ctx, Key: key, Pieces: [][]any{inputs}}, p.MergeArgs, inputs)
	return v, in, err
}

func pieceKey(p *protocol.ShufflePush, part int) graph.Key {
	return graph.Key(fmt.Sprintf("shuffle-%s-r%d-p%d-s%d-%d", p.ID, p.Run, part, p.Side, p.Source))
}

// pieces returns an unpack's pieces, per side in order of source, each
// with a reference the caller releases, and the store keys to drop once
// the unpack has succeeded. An output missing a source's delivery is an
// error of Kind Retry: the scheduler starts the shuffle again.
func (sh *shuffles) pieces(run *protocol.ShuffleRun, spec *graph.Shuffle) ([][]any, []graph.Key, error) {
	sh.mu.Lock()
	o := sh.parts[outputKey{run.ID, run.Run, spec.Part}]
	sh.mu.Unlock()
	if o != nil {
		o.merging.Lock() // a merge under way ends first
		defer o.merging.Unlock()
	}
	sh.mu.Lock()
	var keys [][]graph.Key
	missing := 0
	for side, n := range spec.Sources {
		var ks []graph.Key
		if m := o.mergedOf(side); m != nil && m.key != "" {
			ks = append(ks, m.key)
		}
		for src := 0; src < n; src++ {
			k, ok := graph.Key(""), false
			if o != nil {
				k, ok = o.got[[2]int{side, src}]
			}
			if !ok {
				missing++
			} else if k != "" {
				ks = append(ks, k)
			}
		}
		keys = append(keys, ks)
	}
	sh.mu.Unlock()
	if missing > 0 {
		return nil, nil, fmt.Errorf("output %d of shuffle %s (run %d) lacks the pieces of %d transfers", spec.Part, run.ID, run.Run, missing)
	}
	out := make([][]any, len(keys))
	var all []graph.Key
	for side, ks := range keys {
		for _, k := range ks {
			v, ok, err := sh.store.Get(k)
			if err != nil || !ok {
				releaseAll(out)
				return nil, nil, fmt.Errorf("output %d of shuffle %s (run %d): piece %s is gone: %v", spec.Part, run.ID, run.Run, k, err)
			}
			out[side] = append(out[side], v)
			all = append(all, k)
		}
	}
	return out, all, nil
}

// mergedOf is side's combined piece in o, if any (o may be nil).
func (o *output) mergedOf(side int) *mergedRun {
	if o == nil {
		return nil
	}
	return o.merged[side]
}

// keys lists the store keys o holds.
func (o *output) keys() []graph.Key {
	var keys []graph.Key
	for _, key := range o.got {
		if key != "" {
			keys = append(keys, key)
		}
	}
	for _, m := range o.merged {
		if m.key != "" {
			keys = append(keys, m.key)
		}
	}
	return keys
}

// consumed drops an unpacked output's pieces.
func (sh *shuffles) consumed(run *protocol.ShuffleRun, part int, keys []graph.Key) {
	sh.mu.Lock()
	if o := sh.parts[outputKey{run.ID, run.Run, part}]; o != nil {
		o.done = true
		keys = append(keys, o.keys()...)
		clear(o.got)
		clear(o.merged)
	}
	sh.mu.Unlock()
	sh.deleteAll(keys)
}

// drop forgets the pieces of shuffle id's runs up to run.
func (sh *shuffles) drop(id string, run uint64) {
	sh.mu.Lock()
	keys := sh.dropLocked(id, run)
	if run >= sh.newest[id] {
		delete(sh.newest, id)
	}
	sh.mu.Unlock()
	sh.deleteAll(keys)
}

func (sh *shuffles) dropLocked(id string, run uint64) []graph.Key {
	var keys []graph.Key
	for k, o := range sh.parts {
		if k.id == id && k.run <= run {
			keys = append(keys, o.keys()...)
			delete(sh.parts, k)
		}
	}
	return keys
}

func (sh *shuffles) deleteAll(keys []graph.Key) {
	for _, k := range keys {
		if k != "" {
			sh.store.Delete(k)
		}
	}
}

func releaseAll(sides [][]any) {
	for _, vs := range sides {
		for _, v := range vs {
			registry.Release(v)
		}
	}
}

// Push takes pieces a transfer sent to this worker.
func (w *Worker) Push(_ context.Context, p *protocol.ShufflePush) error {
	if w.closing() {
		for _, v := range p.Values {
			registry.Release(v)
		}
		return fmt.Errorf("worker %s is closing", w.id)
	}
	w.shuffles.receive(p)
	return nil
}

// transfer pushes the pieces of a transfer's split to the workers that
// assemble their outputs, this one included, at most pushers at a time.
func (w *Worker) transfer(t *graph.Task, run *protocol.ShuffleRun, split *registry.Split) error {
	defer func() {
		for _, v := range split.Pieces {
			registry.Release(v)
		}
	}()
	spec := t.Shuffle
	if len(split.Pieces) != spec.Outputs {
		return fmt.Errorf("transfer %s split its input into %d pieces for %d outputs", t.Key, len(split.Pieces), spec.Outputs)
	}
	byOwner := map[protocol.WorkerID]*protocol.ShufflePush{}
	var owners []protocol.WorkerID
	for part, v := range split.Pieces {
		owner := run.Owner(part)
		p := byOwner[owner]
		if p == nil {
			p = &protocol.ShufflePush{ID: run.ID, Run: run.Run, Side: spec.Side, Source: spec.Source,
				Merge: spec.Merge, MergeArgs: spec.MergeArgs}
			byOwner[owner] = p
			owners = append(owners, owner)
		}
		p.Parts = append(p.Parts, part)
		p.Values = append(p.Values, v)
	}
	slices.Sort(owners)
	errs := make(chan error, len(owners))
	sem := make(chan struct{}, pushers)
	for _, owner := range owners {
		p := byOwner[owner]
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- w.push(owner, p)
		}()
	}
	var first error
	for range owners {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// push hands p to owner: to this worker's own shuffles without a copy.
func (w *Worker) push(owner protocol.WorkerID, p *protocol.ShufflePush) error {
	if owner == w.id {
		own := *p
		own.Values = slices.Clone(p.Values)
		for _, v := range own.Values {
			registry.Retain(v)
		}
		w.shuffles.receive(&own)
		return nil
	}
	conn, err := w.conns.Get(w.ctx, string(owner))
	if err == nil {
		err = conn.Push(w.ctx, p)
	}
	if err != nil {
		return fmt.Errorf("push pieces of shuffle %s to worker %s: %w", p.ID, owner, err)
	}
	return nil
}
