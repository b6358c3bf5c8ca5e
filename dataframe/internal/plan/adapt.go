package plan

import (
	"context"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
)

// Adapt settles, before a plan runs, the steps whose way depends on sizes
// that only running can tell. An aggregation computes its partial results
// first and combines them by their size (settle). A join that would shuffle both sides, where
// one side may have been made small by a filter, a join or an aggregation
// below it, has that side computed first and held (as Persist holds a
// frame), and is then planned on its real size, broadcast where it is
// small beside the other. So Spark's adaptive execution turns a shuffle
// join into a broadcast one once a side's size is known. The side is
// computed once either way: a join that still shuffles reads it from where
// it is held. release lets the held sides go, once the plan has run.
func Adapt(ctx context.Context, ex collections.Executor, plan Node) (out Node, release func(), err error) {
	a := &adapter{ctx: ctx, ex: ex, held: map[string]*Persisted{}, relied: reliedOn(plan), shared: sharedSteps(plan)}
	release = func() {
		for _, p := range a.held {
			p.Pin.Release()
		}
	}
	out, err = rewriteErr(plan, a.visit)
	if err == nil && len(a.held) > 0 {
		// A step held is read where it is held by every step that reads
		// it, not only by the one that asked for it.
		out, err = rewriteErr(out, func(n Node) (Node, error) {
			if p, ok := a.held[n.Name()]; ok {
				return p, nil
			}
			return n, nil
		})
	}
	if err != nil {
		release()
		return nil, nil, err
	}
	return out, release, nil
}

type adapter struct {
	ctx    context.Context
	ex     collections.Executor
	held   map[string]*Persisted // by the name of the step computed
	relied map[string]bool       // the steps whose partitioning a later step uses
	shared map[string]bool       // the steps more than one step reads
}

// visit settles a join whose way depends on a side's real size (plans
// are visited inputs first, by rewriteErr).
func (a *adapter) visit(n Node) (Node, error) {
	if g, ok := n.(*groupAgg); ok && g.undecided(a.shared, a.relied) {
		return a.settle(g)
	}
	j, ok := n.(*join)
	if !ok {
		return n, nil
	}
	// Where the side held first is not small after all, the other may
	// be (TPC-H q4 holds lineitem's late lines, estimated the smaller by
	// their one column, then finds the quarter's orders small).
	relied := a.relied[j.Name()] // by the plan's name for it, before holding renames it
	for {
		side := j.undecidedSide()
		if side < 0 {
			return j, nil
		}
		kids := j.children()
		held, err := a.hold(kids[side])
		if err != nil {
			return nil, err
		}
		kids[side] = held
		spec := j.spec
		j = NewJoin(kids[0], kids[1], spec)
		if !relied || j.strategy() == joinShuffle || j.spec.How == kernel.Semi || j.spec.How == kernel.Anti {
			continue
		}
		// A later join reads this one's rows where its shuffle puts them.
		// A broadcast leaves them where the other side's lie, for that
		// join to shuffle: no dearer where the held side's keys are
		// unique, as then this join has at most the other side's rows
		// (TPC-H q2 joins its few BRASS parts to 1.6M European part
		// suppliers, their suppliers' strings and all, and shuffled the
		// 1.6M). A semi or anti join never repeats a row, so it is asked
		// only of the others that would broadcast: counting the distinct
		// keys of 7M held orders, three times, was a third of TPC-H q21.
		keep, err := a.repeats(held, j.on(side))
		if err != nil {
			return nil, err
		}
		if keep {
			spec.Broadcast = -1 // stays a shuffle, of the held side
			return NewJoin(kids[0], kids[1], spec), nil
		}
	}
}

// repeats reports whether a join's held side holds any of its keys more
// than once.
func (a *adapter) repeats(held *Persisted, keys []string) (bool, error) {
	n, err := CountRows(a.ctx, a.ex, NewDedup(NewProject(held, keys), keys))
	return n < held.Rows, err
}

// hold computes a step and holds its partitions, once per plan. A step
// that reads, through projections and filters, a step others read too
// holds that one first and is computed from it, which the others then
// read where it is held: computed once, not once for this and again for
// the plan (SQL's TPC-H q21 decorrelated held the keys of its lines and
// computed the lines' joins twice, 9 s at SF10 where the dataframe's
// plan took 3).
func (a *adapter) hold(n Node) (*Persisted, error) {
	if p, ok := a.held[n.Name()]; ok {
		return p, nil
	}
	if s := a.sharedBelow(n); s != nil {
		ps, err := a.hold(s)
		if err != nil {
			return nil, err
		}
		if n, err = rewriteErr(n, func(m Node) (Node, error) {
			if m.Name() == s.Name() {
				return ps, nil
			}
			return m, nil
		}); err != nil {
			return nil, err
		}
	}
	p, err := Persist(a.ctx, a.ex, n, n.Schema(), n.Name())
	if err != nil {
		return nil, err
	}
	// Its rows, with its bytes, decide whether it is broadcast.
	if p.Rows, err = CountRows(a.ctx, a.ex, p); err != nil {
		p.Pin.Release()
		return nil, err
	}
	a.held[n.Name()] = p
	return p, nil
}

// sharedBelow is the step that n reads through projections, filters,
// renames and computed columns alone, where another step reads it too.
func (a *adapter) sharedBelow(n Node) Node {
	for c := n; ; {
		switch c.(type) {
		case *project, *filter, *renaming, *assign:
			c = c.children()[0]
		default:
			return nil
		}
		if _, held := c.(*Persisted); held {
			return nil
		}
		if a.shared[c.Name()] {
			return c
		}
	}
}

// reliedOn names the steps of a plan whose hash partitioning a join of
// co-partitioned sides uses as it is, through the steps that keep it
// (filters, projections, groupbys in place): a join among them stays a
// shuffle, as a broadcast would leave its rows where the other side's lie
// and the later join would shuffle them again.
func reliedOn(plan Node) map[string]bool {
	relied := map[string]bool{}
	var mark func(n Node)
	mark = func(n Node) {
		relied[n.Name()] = true
		switch n := n.(type) {
		case *filter, *project, *assign, *renaming:
			mark(n.children()[0])
		case *groupAgg:
			if n.inPlace() {
				mark(n.child)
			}
		}
	}
	eachStep(plan, func(n Node) {
		if j, ok := n.(*join); ok && j.strategy() == joinPartitioned {
			mark(j.left)
			mark(j.right)
		}
	})
	return relied
}

// eachStep calls visit on each step of a plan once, a step read by several
// steps included.
func eachStep(plan Node, visit func(n Node)) {
	seen := map[string]bool{}
	var walk func(n Node)
	walk = func(n Node) {
		if seen[n.Name()] {
			return
		}
		seen[n.Name()] = true
		visit(n)
		for _, c := range n.children() {
			walk(c)
		}
	}
	walk(plan)
}

// undecidedSide is the side (0 left, 1 right) whose real size decides
// whether the join broadcasts it instead of shuffling both, or -1: a side the join may broadcast, that may have shrunk below its estimate, the
// one estimated smaller where both qualify. (An estimate cannot tell a
// filter that keeps one row in a hundred from one that keeps most.)
func (j *join) undecidedSide() int {
	if j.spec.Broadcast < 0 || j.strategy() != joinShuffle {
		return -1
	}
	sizes := [2]int64{Estimate(j.left).Bytes, Estimate(j.right).Bytes}
	side := -1
	for s, n := range []Node{j.left, j.right} {
		may := s == 1 && keepsLeft(j.spec.How) || s == 0 && j.spec.How != kernel.Left && j.spec.How != kernel.Outer
		if !may || sizes[1-s] < 0 || !MayShrink(n) {
			continue
		}
		if side < 0 || sizes[s] >= 0 && (sizes[side] < 0 || sizes[s] < sizes[side]) {
			side = s
		}
	}
	return side
}

// selective reports whether a reader's predicate may drop rows for more
// than their nulls: a test that keys are not null (SQL's joins add them)
// drops few if any.
func selective(pred *expr.Node) bool {
	if pred == nil {
		return false
	}
	for _, c := range expr.Conjuncts(pred) {
		if !(c.Op == "not" && len(c.Args) == 1 && c.Args[0].Op == "isnull") {
			return true
		}
	}
	return false
}

// MayShrink reports whether a step may hold fewer rows than the data it
// reads: whether a filter, a join that drops rows or an aggregation is
// below it, down to the data read or held.
func MayShrink(n Node) bool {
	switch n := n.(type) {
	case *Source:
		return selective(n.pred)
	case *Persisted:
		return false
	case *filter, *groupAgg, *dedup, *limited:
		return true
	case *join:
		if n.spec.How != kernel.Outer {
			return true
		}
	}
	for _, c := range n.children() {
		if MayShrink(c) {
			return true
		}
	}
	return false
}

// Persist computes a plan, holds its partitions in the workers' memory and
// measures them; out is the frame's schema and tok its name.
func Persist(ctx context.Context, ex collections.Executor, plan Node, out *arrow.Schema, tok string) (*Persisted, error) {
	l := NewLowering()
	return persistKeys(ctx, ex, l.G, l.Keys(plan), out, tok, plan.Partitioning())
}

// persistKeys runs what keys need in g and holds them, as persist does.
func persistKeys(ctx context.Context, ex collections.Executor, g *graph.Graph, keys []graph.Key, out *arrow.Schema, tok string, parts partitioning) (*Persisted, error) {
	release, err := ex.Persist(ctx, g, keys)
	if err != nil {
		return nil, err
	}
	p := &Persisted{Out: out, Keys: keys, Tok: tok, parts: parts, Pin: collections.NewPin(release), Bytes: -1, Rows: -1}
	// The partitions' sizes choose the joins that broadcast the frame.
	if m, ok := ex.(collections.Measurer); ok {
		if n, ok := m.Nbytes(keys); ok {
			p.Bytes = n
		}
	}
	return p, nil
}
