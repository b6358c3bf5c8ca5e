package process

import (
	"context"
	"fmt"
	"slices"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/worker"
	"github.com/duskdata/dusk/worker/store"
)

// pushers bounds how many workers one transfer pushes to at once.
const pushers = 4

// receive keeps the pieces of a push, which it owns, under the store keys
// the core gives them, letting go of the others; the core decides what a
// push's pieces are for (worker.State.ShufflePush). The pieces go into the
// store under the lock, so that a drop the core decides later cannot
// overtake them.
func (w *Worker) receive(p *protocol.ShufflePush) {
	sizes := make([]worker.Size, len(p.Values))
	for i, v := range p.Values {
		if v != nil {
			sizes[i] = worker.Size{Bytes: store.SizeOf(v), Rows: rowsOf(v)}
		}
	}
	kept := false
	w.handle(func(s *worker.State) {
		kept = true
		for i, k := range s.ShufflePush(p, sizes) {
			if k != "" {
				w.store.Put(k, p.Values[i])
			} else if p.Values[i] != nil {
				registry.Release(p.Values[i])
			}
		}
	})
	if !kept { // closing
		for _, v := range p.Values {
			registry.Release(v)
		}
	}
}

// merge runs a merge the core asked for, on one of the worker's threads
// (runTasks), and reports it.
func (w *Worker) merge(j *worker.MergeJob) {
	v, err := w.combine(j)
	w.handle(func(s *worker.State) {
		var size worker.Size
		if err == nil {
			rows := rowsOf(v) // before the store owns it
			size = worker.Size{Bytes: w.store.Put(j.Key, v), Rows: rows}
		}
		s.MergeDone(j, size, err)
	})
}

// rowsOf is a shuffle piece's rows, by which the worker core judges its
// merges: a record's, or a piece of one's; -1 for values without rows.
func rowsOf(v any) int64 {
	if r, ok := v.(interface{ NumRows() int64 }); ok {
		return r.NumRows()
	}
	return -1
}

// combine runs j's operation on its pieces.
func (w *Worker) combine(j *worker.MergeJob) (any, error) {
	op, err := registry.Lookup(j.Op)
	if err != nil {
		return nil, err
	}
	inputs := make([]any, 0, len(j.Inputs))
	defer func() {
		for _, v := range inputs {
			registry.Release(v)
		}
	}()
	for _, k := range j.Inputs {
		v, ok, err := w.store.Get(k)
		if err != nil || !ok {
			return nil, fmt.Errorf("piece %s is gone: %v", k, err)
		}
		inputs = append(inputs, v)
	}
	// The pieces come as an unpack's of one side, and as inputs.
	return op(&registry.Context{Context: w.ctx, Key: j.Key, Pieces: [][]any{inputs}}, j.Args, inputs)
}

// pieces returns an unpack's pieces, under the keys the core named, each
// with a reference the caller releases. A piece gone from the store (its
// run dropped meanwhile, or a spill that failed to read back) is an error
// of Kind Retry: the scheduler starts the shuffle again.
func (w *Worker) pieces(run *protocol.ShuffleRun, spec *graph.Shuffle, keys [][]graph.Key) ([][]any, error) {
	out := make([][]any, len(keys))
	for side, ks := range keys {
		for _, k := range ks {
			v, ok, err := w.store.Get(k)
			if err != nil || !ok {
				releaseAll(out)
				return nil, fmt.Errorf("output %d of shuffle %s (run %d): piece %s is gone: %v", spec.Part, run.ID, run.Gen(spec.Part), k, err)
			}
			out[side] = append(out[side], v)
		}
	}
	return out, nil
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
	if w.Closing() {
		for _, v := range p.Values {
			registry.Release(v)
		}
		return fmt.Errorf("worker %s is closing", w.id)
	}
	w.receive(p)
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
	dests := run.Destinations(spec.Outputs)
	errs := make(chan error, len(dests))
	sem := make(chan struct{}, pushers)
	for _, d := range dests {
		p := &protocol.ShufflePush{ID: run.ID, Run: d.Gen, Side: spec.Side, Source: spec.Source,
			Merge: spec.Merge, MergeArgs: spec.MergeArgs, Parts: d.Parts}
		for _, part := range d.Parts {
			p.Values = append(p.Values, split.Pieces[part])
		}
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- w.push(d.Owner, p)
		}()
	}
	var first error
	for range dests {
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
		w.receive(&own)
		return nil
	}
	ctx, done := w.conns.Scope(w.ctx, string(owner))
	defer done()
	conn, err := w.conns.Get(ctx, string(owner))
	if err == nil {
		err = conn.Push(ctx, p)
	}
	if ctx.Err() != nil && w.ctx.Err() == nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		return fmt.Errorf("push pieces of shuffle %s to worker %s: %w", p.ID, owner, err)
	}
	return nil
}
