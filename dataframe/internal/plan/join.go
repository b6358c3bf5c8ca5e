package plan

import (
	"sync"

	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
)

// keepsLeft reports whether a join keeps each left row's columns as they
// are, every row or a selection of them: what a filter on them commutes
// with, and what a broadcast of the right side serves.
func keepsLeft(how kernel.JoinType) bool {
	return how == kernel.Inner || how == kernel.Left || how == kernel.Semi || how == kernel.Anti
}

type join struct {
	left, right Node
	spec        exchange.JoinSpec
	out         *arrow.Schema
	tok         string
	ranges      func() rangeJoin // byRanges, worked out once
	strategy    func() string    // how it runs (chooseStrategy), worked out once
}

// rangeJoin is how a join by key ranges reads its right side: ok when it
// can (see join.byRanges).
type rangeJoin struct {
	right  *Source
	bounds []keyRange // each left partition's range of the key
	ok     bool
}

func NewJoin(left, right Node, spec exchange.JoinSpec) *join {
	fields := make([]arrow.Field, len(spec.Cols))
	for i, c := range spec.Cols {
		s := left.Schema()
		if c.Side == 1 {
			s = right.Schema()
		}
		fields[i] = arrow.Field{Name: c.Name, Type: s.Field(s.FieldIndices(c.Src)[0]).Type, Nullable: true}
	}
	j := &join{left: left, right: right, spec: spec, out: arrow.NewSchema(fields, nil),
		tok: token("join", struct {
			S exchange.JoinSpec
			B int64
		}{spec, spec.Broadcast}, left, right)}
	j.ranges = sync.OnceValue(j.byRanges)
	j.strategy = sync.OnceValue(j.chooseStrategy)
	return j
}

func (j *join) Schema() *arrow.Schema { return j.out }
func (j *join) Name() string          { return j.tok }
func (j *join) children() []Node      { return []Node{j.left, j.right} }
func (j *join) with(c []Node) Node    { return NewJoin(c[0], c[1], j.spec) }

func (j *join) lower(l *Lowering) []graph.Key {
	scan, probeLeft := j.scan()
	if scan != nil && l.done[scan.Name()] != nil {
		scan = nil // read already for another step: its partitions serve both
	}
	var filtered *filter
	if scan == nil {
		if filtered, probeLeft = j.filtered(); filtered != nil && l.done[filtered.Name()] != nil {
			filtered = nil
		}
	}
	var lk, rk []graph.Key
	switch {
	case filtered != nil && probeLeft:
		lk = l.Keys(filtered.child) // the join's tasks filter them
	case scan == nil || !probeLeft:
		lk = l.Keys(j.left)
	}
	switch {
	case filtered != nil && !probeLeft:
		rk = l.Keys(filtered.child)
	case j.strategy() != joinRanges && (scan == nil || probeLeft):
		rk = l.Keys(j.right)
	}
	args := ops.MustJSON(exchange.JoinArgs{JoinSpec: j.spec, Left: ops.SpecOf(j.left.Schema()), Right: ops.SpecOf(j.right.Schema()), LeftParts: j.left.Npartitions()})
	// A broadcast side is gathered into one record, whose hash table the
	// first join task that needs it builds for every partition of the
	// other side that probes it.
	built := func(side Node, keys []graph.Key, on []string) graph.Key {
		bargs := ops.MustJSON(exchange.JoinBuildArgs{Keys: on, Out: ops.SpecOf(side.Schema())})
		k := graph.Part(graph.Name("broadcast", exchange.OpJoinBuild, bargs, side.Name()), 0)
		l.G.Add(&graph.Task{Key: k, Op: exchange.OpJoinBuild, Args: bargs, Inputs: keys})
		return k
	}
	out := make([]graph.Key, 0, j.Npartitions())
	switch j.strategy() {
	case joinPartitioned:
		for i := range lk {
			k := graph.Part(j.tok, i)
			l.G.Add(&graph.Task{Key: k, Op: exchange.OpJoin, Args: args, Inputs: []graph.Key{lk[i], rk[i]}})
			out = append(out, k)
		}
	case joinBroadcastRight:
		r := built(j.right, rk, j.spec.RightOn)
		if scan != nil {
			return j.scanTasks(l, scan, r, args, true)
		}
		if filtered != nil {
			return j.filterTasks(l, filtered, lk, r, args, true)
		}
		for i := range lk {
			k := graph.Part(j.tok, i)
			l.G.Add(&graph.Task{Key: k, Op: exchange.OpJoin, Args: args, Inputs: []graph.Key{lk[i], r}})
			out = append(out, k)
		}
	case joinRanges:
		// The right side's tasks are not lowered: each join task reads
		// the right rows of its range itself.
		rj := j.ranges()
		r := rj.right
		for i := range lk {
			in := r.narrowed(r.cols, expr.And(r.pred, rangeOf(j.spec.RightOn[0], rj.bounds[i])))
			k := graph.Part(j.tok, i)
			ra := ops.MustJSON(exchange.JoinReadArgs{Join: args, Read: r.op, Parts: in.taskArgs()})
			l.G.Add(&graph.Task{Key: k, Op: exchange.OpJoinRead, Args: ra, Inputs: []graph.Key{lk[i]}})
			out = append(out, k)
		}
		return out
	case joinBroadcastLeft:
		lw := built(j.left, lk, j.spec.LeftOn)
		if scan != nil {
			return j.scanTasks(l, scan, lw, args, false)
		}
		if filtered != nil {
			return j.filterTasks(l, filtered, rk, lw, args, false)
		}
		for i := range rk {
			k := graph.Part(j.tok, i)
			l.G.Add(&graph.Task{Key: k, Op: exchange.OpJoin, Args: args, Inputs: []graph.Key{lw, rk[i]}})
			out = append(out, k)
		}
	case joinMarkLeft:
		// Each right partition marks the left rows its keys match; the
		// left rows marked by any (semi) or by none (anti) are the result.
		lw := built(j.left, lk, j.spec.LeftOn)
		marks := l.MapParts(graph.Name("join-marks", exchange.OpJoinMarks, args, j.tok), exchange.OpJoinMarks, args, rk, lw)
		k := graph.Part(j.tok, 0)
		l.G.Add(&graph.Task{Key: k, Op: exchange.OpJoinMarked, Args: args, Inputs: append([]graph.Key{lw}, marks...)})
		out = append(out, k)
	default:
		n := j.Npartitions()
		out = l.shuffle(j.tok, n, []shuffleSide{
			{parts: lk, op: exchange.OpHashSplit, args: ops.MustJSON(exchange.HashSplitArgs{Keys: j.spec.LeftOn, N: n, CopyKeys: true})},
			{parts: rk, op: exchange.OpHashSplit, args: ops.MustJSON(exchange.HashSplitArgs{Keys: j.spec.RightOn, N: n, CopyKeys: true})},
		}, exchange.OpJoin, args)
	}
	return out
}
