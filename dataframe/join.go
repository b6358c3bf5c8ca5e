package dataframe

import (
	"fmt"
	"slices"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
)

// How is the kind of a join.
type How string

// The joins: Inner keeps matched rows, Left every left row, Right every
// right row, Outer every row of either; Semi keeps each left row that has
// a match, once, and Anti each that has none, with the left's columns
// alone (SQL's EXISTS and NOT EXISTS).
const (
	Inner How = "inner"
	Left  How = "left"
	Right How = "right"
	Outer How = "outer"
	Semi  How = "semi"
	Anti  How = "anti"
)

// MergeOptions say how Merge joins two frames.
type MergeOptions struct {
	// How is Inner (the default), Left, Right, Outer, Semi or Anti.
	How How
	// On names key columns both frames have; the result has each once.
	On []string
	// LeftOn and RightOn name key columns of each frame, pairwise, when
	// their names differ; the result keeps both.
	LeftOn, RightOn []string
	// Suffixes rename other columns found in both frames: "_x" and "_y"
	// by default, as pandas.
	Suffixes [2]string
	// BroadcastBytes: a side whose input is known to be smaller than this
	// (or that has one partition, or is known to hold at most an eighth of
	// the other's and 256 MiB) is sent whole to every partition of the
	// other, which is then not shuffled; its hash table is built once in
	// each process. Default 32 MiB; negative: only a side of one partition.
	BroadcastBytes int64
}

// DefaultBroadcastBytes is the size under which Merge broadcasts a side.
const DefaultBroadcastBytes = 32 << 20

// Join merges with right on columns both have.
func (f *Frame) Join(right *Frame, how How, on ...string) *Frame {
	return f.Merge(right, MergeOptions{How: how, On: on})
}

// Merge joins f (left) with right where the key columns are equal, as
// pandas' merge; null keys match each other. The rows come out in no
// particular order. Rows meet by a broadcast of a small side, on their
// partitions as they are when both are hash-partitioned on the keys into
// as many partitions, or else by a peer-to-peer hash shuffle of both.
func (f *Frame) Merge(right *Frame, o MergeOptions) *Frame {
	if f.err != nil {
		return f
	}
	if right.err != nil {
		return right
	}
	how, err := parseHow(o.How)
	if err != nil {
		return failed(fmt.Errorf("Merge: %w", err))
	}
	lon, ron := o.LeftOn, o.RightOn
	merged := o.On != nil
	switch {
	case merged && (lon != nil || ron != nil):
		return failed(fmt.Errorf("Merge: give On, or LeftOn and RightOn, not both"))
	case merged:
		lon, ron = o.On, o.On
	case len(lon) != len(ron):
		return failed(fmt.Errorf("Merge: LeftOn names %d columns and RightOn %d", len(lon), len(ron)))
	}
	if len(lon) == 0 {
		return failed(fmt.Errorf("Merge: no key columns: give On, or LeftOn and RightOn"))
	}
	ls, rs := f.plan.schema(), right.plan.schema()
	cast := false
	for i := range lon {
		lf, err := expr.Field(ls, lon[i])
		if err != nil {
			return failed(fmt.Errorf("Merge: left key: %w", err))
		}
		rf, err := expr.Field(rs, ron[i])
		if err != nil {
			return failed(fmt.Errorf("Merge: right key: %w", err))
		}
		if kernel.SameType(lf.Type, rf.Type) {
			continue
		}
		// Numbers of different types join by value: both keys become
		// their common type (an int32 key joins an int64 one as int64, a
		// decimal(12,2) a decimal(18,2) one as decimal(18,2)).
		kl, kr := expr.KindOfType(lf.Type), expr.KindOfType(rf.Type)
		if !expr.IsNumberKind(kl) || !expr.IsNumberKind(kr) {
			return failed(fmt.Errorf("Merge: key columns of different types: left %s is %s, right %s is %s",
				lon[i], kernel.TypeName(lf.Type), ron[i], kernel.TypeName(rf.Type)))
		}
		common := expr.NumberSupertype(lf.Type, rf.Type)
		if w, ok := expr.WideChoice([]arrow.DataType{lf.Type, rf.Type}, []int{0, 1}); ok {
			common = w // a decimal wide enough for both, its values exact
		} else if kl == kernel.KindDecimal || kr == kernel.KindDecimal {
			common, _ = expr.CommonType(lf.Type, rf.Type) // decimal(18, the larger scale), or float64
		}
		if !arrow.TypeEqual(lf.Type, common) {
			f = f.WithColumn(lon[i], Col(lon[i]).Cast(common))
		}
		if !arrow.TypeEqual(rf.Type, common) {
			right = right.WithColumn(ron[i], Col(ron[i]).Cast(common))
		}
		cast = true
	}
	if cast {
		return f.Merge(right, o)
	}
	sfx := o.Suffixes
	if sfx == [2]string{} {
		sfx = [2]string{"_x", "_y"}
	}
	var outs []joinCol
	both := func(name string) bool { return ls.HasField(name) && rs.HasField(name) }
	taken := setOf{}
	for _, fl := range ls.Fields() {
		c := joinCol{Side: 0, Src: fl.Name, Name: fl.Name, Key: -1}
		if k := slices.Index(lon, fl.Name); merged && k >= 0 {
			c.Key = k
		} else if both(fl.Name) && how != kernel.Semi && how != kernel.Anti {
			c.Name += sfx[0]
		}
		outs = append(outs, c)
	}
	for _, fl := range rs.Fields() {
		if merged && slices.Contains(ron, fl.Name) || how == kernel.Semi || how == kernel.Anti {
			continue
		}
		c := joinCol{Side: 1, Src: fl.Name, Name: fl.Name, Key: -1}
		if both(fl.Name) {
			c.Name += sfx[1]
		}
		outs = append(outs, c)
	}
	for _, c := range outs {
		if taken[c.Name] {
			return failed(fmt.Errorf("Merge: two result columns are named %q; choose other Suffixes", c.Name))
		}
		taken[c.Name] = true
	}
	limit := o.BroadcastBytes
	if limit == 0 {
		limit = DefaultBroadcastBytes
	}
	return &Frame{plan: newJoin(f.plan, right.plan, joinSpec{How: how, LeftOn: lon, RightOn: ron, Cols: outs, Broadcast: limit})}
}

func parseHow(h How) (kernel.JoinType, error) {
	if h == "" {
		return kernel.Inner, nil
	}
	for t := kernel.Inner; t <= kernel.Anti; t++ {
		if t.String() == string(h) {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown join %q: use Inner, Left, Right, Outer, Semi or Anti", string(h))
}

// keepsLeft reports whether a join keeps each left row's columns as they
// are, every row or a selection of them: what a filter on them commutes
// with, and what a broadcast of the right side serves.
func keepsLeft(how kernel.JoinType) bool {
	return how == kernel.Inner || how == kernel.Left || how == kernel.Semi || how == kernel.Anti
}

// joinCol is a result column: a side's column, or a key both sides share.
type joinCol struct {
	Side int    `json:"side"`
	Src  string `json:"src"`
	Name string `json:"name"`
	Key  int    `json:"key"` // for a shared key, its position in On; else -1
}

type joinSpec struct {
	How       kernel.JoinType `json:"how"`
	LeftOn    []string        `json:"left_on"`
	RightOn   []string        `json:"right_on"`
	Cols      []joinCol       `json:"cols"`
	Broadcast int64           `json:"-"`
}

type join struct {
	left, right node
	spec        joinSpec
	out         *arrow.Schema
	tok         string
	ranges      func() rangeJoin // byRanges, worked out once
}

// rangeJoin is how a join by key ranges reads its right side: ok when it
// can (see join.byRanges).
type rangeJoin struct {
	right  *source
	bounds []keyRange // each left partition's range of the key
	ok     bool
}

func newJoin(left, right node, spec joinSpec) *join {
	fields := make([]arrow.Field, len(spec.Cols))
	for i, c := range spec.Cols {
		s := left.schema()
		if c.Side == 1 {
			s = right.schema()
		}
		fields[i] = arrow.Field{Name: c.Name, Type: s.Field(s.FieldIndices(c.Src)[0]).Type, Nullable: true}
	}
	j := &join{left: left, right: right, spec: spec, out: arrow.NewSchema(fields, nil),
		tok: token("join", struct {
			S joinSpec
			B int64
		}{spec, spec.Broadcast}, left, right)}
	j.ranges = sync.OnceValue(j.byRanges)
	return j
}

func (j *join) schema() *arrow.Schema { return j.out }
func (j *join) name() string          { return j.tok }
func (j *join) children() []node      { return []node{j.left, j.right} }
func (j *join) with(c []node) node    { return newJoin(c[0], c[1], j.spec) }

type joinArgs struct {
	joinSpec
	Left      []colSpec `json:"left"`
	Right     []colSpec `json:"right"`
	LeftParts int       `json:"left_parts"` // partitions of the left side
}

func (j *join) lower(l *lowering) []graph.Key {
	scan, probeLeft := j.scan()
	if scan != nil && l.done[scan.name()] != nil {
		scan = nil // read already for another step: its partitions serve both
	}
	var lk, rk []graph.Key
	if scan == nil || !probeLeft {
		lk = l.keys(j.left)
	}
	if j.strategy() != joinRanges && (scan == nil || probeLeft) {
		rk = l.keys(j.right)
	}
	args := mustJSON(joinArgs{joinSpec: j.spec, Left: specOf(j.left.schema()), Right: specOf(j.right.schema()), LeftParts: j.left.npartitions()})
	// A broadcast side is gathered into one record, whose hash table the
	// first join task that needs it builds for every partition of the
	// other side that probes it.
	built := func(side node, keys []graph.Key, on []string) graph.Key {
		bargs := mustJSON(joinBuildArgs{Keys: on, Out: specOf(side.schema())})
		k := graph.Part(graph.Name("broadcast", opJoinBuild, bargs, side.name()), 0)
		l.g.Add(&graph.Task{Key: k, Op: opJoinBuild, Args: bargs, Inputs: keys})
		return k
	}
	out := make([]graph.Key, 0, j.npartitions())
	switch j.strategy() {
	case joinPartitioned:
		for i := range lk {
			k := graph.Part(j.tok, i)
			l.g.Add(&graph.Task{Key: k, Op: opJoin, Args: args, Inputs: []graph.Key{lk[i], rk[i]}})
			out = append(out, k)
		}
	case joinBroadcastRight:
		r := built(j.right, rk, j.spec.RightOn)
		if scan != nil {
			return j.scanTasks(l, scan, r, args, true)
		}
		for i := range lk {
			k := graph.Part(j.tok, i)
			l.g.Add(&graph.Task{Key: k, Op: opJoin, Args: args, Inputs: []graph.Key{lk[i], r}})
			out = append(out, k)
		}
	case joinRanges:
		// The right side's tasks are not lowered: each join task reads
		// the right rows of its range itself.
		rj := j.ranges()
		r := rj.right
		for i := range lk {
			in := r.narrowed(r.cols, and(r.pred, rangeOf(j.spec.RightOn[0], rj.bounds[i])))
			k := graph.Part(j.tok, i)
			ra := mustJSON(joinReadArgs{Join: args, Read: r.op, Parts: in.taskArgs()})
			l.g.Add(&graph.Task{Key: k, Op: opJoinRead, Args: ra, Inputs: []graph.Key{lk[i]}})
			out = append(out, k)
		}
		return out
	case joinBroadcastLeft:
		lw := built(j.left, lk, j.spec.LeftOn)
		if scan != nil {
			return j.scanTasks(l, scan, lw, args, false)
		}
		for i := range rk {
			k := graph.Part(j.tok, i)
			l.g.Add(&graph.Task{Key: k, Op: opJoin, Args: args, Inputs: []graph.Key{lw, rk[i]}})
			out = append(out, k)
		}
	case joinMarkLeft:
		// Each right partition marks the left rows its keys match; the
		// left rows marked by any (semi) or by none (anti) are the result.
		lw := built(j.left, lk, j.spec.LeftOn)
		marks := l.mapParts(graph.Name("join-marks", opJoinMarks, args, j.tok), opJoinMarks, args, rk, lw)
		k := graph.Part(j.tok, 0)
		l.g.Add(&graph.Task{Key: k, Op: opJoinMarked, Args: args, Inputs: append([]graph.Key{lw}, marks...)})
		out = append(out, k)
	default:
		n := j.npartitions()
		out = l.shuffle(j.tok, n, []shuffleSide{
			{parts: lk, op: opHashSplit, args: mustJSON(hashSplitArgs{Keys: j.spec.LeftOn, N: n, CopyKeys: true})},
			{parts: rk, op: opHashSplit, args: mustJSON(hashSplitArgs{Keys: j.spec.RightOn, N: n, CopyKeys: true})},
		}, opJoin, args)
	}
	return out
}
