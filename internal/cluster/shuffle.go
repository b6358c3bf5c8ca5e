package cluster

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/worker"
)

// pushers bounds how many workers one transfer pushes to at once.
const pushers = 4

// shuffles is a worker's side of the peer-to-peer shuffles (graph.Shuffle):
// it keeps the pieces pushed to it in the worker's store, where they count
// as managed memory and spill like results, and hands them to unpacks.
type shuffles struct {
	store *worker.Store

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
	got  map[[2]int]graph.Key // {side, source} → store key ("" for an empty piece)
	done bool                 // unpacked: late pieces are dropped
}

func newShuffles(store *worker.Store) *shuffles {
	return &shuffles{store: store, newest: map[string]uint64{}, parts: map[outputKey]*output{}}
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
				o = &output{got: map[[2]int]graph.Key{}}
				sh.parts[k] = o
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
			worker.Release(v)
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
	var keys [][]graph.Key
	missing := 0
	for side, n := range spec.Sources {
		var ks []graph.Key
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

// consumed drops an unpacked output's pieces.
func (sh *shuffles) consumed(run *protocol.ShuffleRun, part int, keys []graph.Key) {
	sh.mu.Lock()
	if o := sh.parts[outputKey{run.ID, run.Run, part}]; o != nil {
		o.done = true
		clear(o.got)
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
			for _, key := range o.got {
				if key != "" {
					keys = append(keys, key)
				}
			}
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
			worker.Release(v)
		}
	}
}

// Push takes pieces a transfer sent to this worker.
func (w *Worker) Push(_ context.Context, p *protocol.ShufflePush) error {
	if w.closing() {
		for _, v := range p.Values {
			worker.Release(v)
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
			worker.Release(v)
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
			p = &protocol.ShufflePush{ID: run.ID, Run: run.Run, Side: spec.Side, Source: spec.Source}
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
			worker.Retain(v)
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
