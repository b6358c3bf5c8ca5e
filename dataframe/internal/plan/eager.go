package plan

import (
	"slices"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/agg"
	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/internal/kernel"
)

// eagerAgg groups before a join (Yan and Larson's eager aggregation) where
// the joins below an aggregation only bring its keys: the rows its
// aggregates read are grouped by their join key first, and the groups,
// not the rows, meet the tables whose columns the keys are. The keys must
// hold that join key's other side (so there are no more groups below the
// join than above it), and the tables joined must keep their rows (read
// unfiltered), else the join would have dropped rows the early grouping
// reads in vain (TPC-H q18's few large orders). SQL's TPC-H q10 groups its
// lines by customer before they meet the customers' names, addresses and
// comments, as the dataframe query was written by hand. Sums, counts,
// sizes, minima and maxima split so; the others leave the plan as it is.
func eagerAgg(n Node) Node {
	g, ok := n.(*groupAgg)
	if !ok || g.args.Mode != agg.ModeAgg || len(g.args.Aggs) == 0 || slices.Equal(g.args.Keys, []string{agg.AllRows}) {
		return n
	}
	for _, s := range g.args.Aggs {
		if _, ok := eagerFns[s.Fn]; !ok || s.Col2 != "" {
			return n
		}
	}
	// The computed columns the aggregates read, and what they read.
	var assigns []*assign
	c := g.child
	for {
		if p, ok := c.(*project); ok {
			c = p.child
		} else if a, ok := c.(*assign); ok {
			assigns = append(assigns, a)
			c = a.child
		} else {
			break
		}
	}
	reads := ops.SetOf{}
	for _, s := range g.args.Aggs {
		if s.Col != "" {
			reads.Add(s.Col)
		}
	}
	var used []*assign // innermost last
	for _, a := range assigns {
		if slices.Contains(g.args.Keys, a.col) {
			return n
		}
		if reads[a.col] {
			delete(reads, a.col)
			a.expr.Columns(reads)
			used = append(used, a)
		}
	}
	top, ok := c.(*join)
	if !ok {
		return n
	}
	// Down the joins whose other side keeps its rows, to the deepest one
	// with every column read on one side.
	var path []pathStep
	names := map[string]string{} // a column read, at the top -> its name at the current depth
	for c := range reads {
		names[c] = c
	}
	keys := map[string]string{} // a key at the top -> its name at the current depth, while on the path
	for _, k := range g.args.Keys {
		keys[k] = k
	}
	best := -1
	var bestReads map[string]string
	for cur := Node(top); ; {
		j, ok := cur.(*join)
		if !ok || j.spec.How != kernel.Inner {
			break
		}
		side := -1
		next := map[string]string{}
		for col, name := range names {
			s, src, ok := j.source(name)
			if !ok || side >= 0 && s != side {
				side = -2
				break
			}
			side, next[col] = s, src
		}
		if side < 0 || !keepsRows(j.children()[1-side]) {
			break
		}
		// The keys that stay on the path; those that leave it come from
		// the other side, and must not be read by a join below.
		stay := map[string]string{}
		covered := 0 // the join's keys the aggregation's keys hold
		for key, name := range keys {
			s, src, ok := j.source(name)
			if !ok {
				return n
			}
			if slices.Contains(j.on(s), src) {
				covered++
			}
			if s == side {
				stay[key] = src
			}
		}
		path = append(path, pathStep{j, side})
		if covered >= len(j.spec.LeftOn) && onlyKeys(stay, j, side) {
			best, bestReads = len(path)-1, next
		}
		names, keys = next, stay
		cur = j.children()[side]
	}
	if best < 0 {
		return n
	}
	path = path[:best+1]
	// The upper joins' keys on the path's side must be the grouped join's
	// own keys, which the early groups keep.
	low := path[best]
	kept := map[string]bool{}
	for _, k := range low.j.on(low.side) {
		kept[k] = true
	}
	for i := range best {
		s := path[i]
		for _, k := range s.j.on(s.side) {
			if !traceDown(path[i+1:], k, kept) {
				return n
			}
		}
	}

	// Build: the early groups over the side's rows with the computed
	// columns the aggregates read, by the join's keys on that side.
	below := low.j.children()[low.side]
	rename := func(e *expr.Node) *expr.Node { return renamed(e, bestReads) }
	for i := len(used) - 1; i >= 0; i-- {
		a := used[i]
		if len(below.Schema().FieldIndices(a.col)) > 0 {
			return n
		}
		below = NewAssign(below, a.col, rename(a.expr))
		bestReads[a.col] = a.col
	}
	on := low.j.on(low.side)
	inner := agg.GroupArgs{Keys: on, Mode: agg.ModeAgg, NullKeys: true}
	outer := g.args
	outer.Aggs = nil
	bs := below.Schema()
	var fields []arrow.Field
	for _, k := range on {
		fields = append(fields, bs.Field(bs.FieldIndices(k)[0]))
	}
	var early []string
	for i, s := range g.args.Aggs {
		name := "__eager_" + s.As
		if len(bs.FieldIndices(name)) > 0 {
			return n
		}
		in := s
		in.As = name
		if s.Col != "" {
			in.Col = bestReads[s.Col]
			if in.Col == "" {
				return n
			}
		}
		inner.Aggs = append(inner.Aggs, in)
		// The early answer's type is the final one's: a sum of sums, a count's int64.
		fields = append(fields, arrow.Field{Name: name, Type: g.out.Field(len(g.args.Keys) + i).Type, Nullable: true})
		out := s
		out.Fn, out.Col = eagerFns[s.Fn], name
		outer.Aggs = append(outer.Aggs, out)
		early = append(early, name)
	}
	grouped := Node(NewGroupAgg(below, inner, arrow.NewSchema(fields, nil), 0))
	// The joins on the path again, carrying the groups' aggregates up in
	// place of the rows' columns.
	for i := best; i >= 0; i-- {
		s := path[i]
		kids := s.j.children()
		kids[s.side] = grouped
		spec := s.j.spec
		spec.Cols = nil
		have := grouped.Schema()
		for _, c := range s.j.spec.Cols {
			if c.Key >= 0 || c.Side != s.side || len(have.FieldIndices(c.Src)) > 0 {
				spec.Cols = append(spec.Cols, c)
			}
		}
		for _, name := range early {
			spec.Cols = append(spec.Cols, exchange.JoinCol{Side: s.side, Src: name, Name: name, Key: -1})
		}
		grouped = NewJoin(kids[0], kids[1], spec)
	}
	return NewGroupAgg(grouped, outer, g.out, g.splitOut)
}

// pathStep is a join on the way down from an aggregation, and the side of
// it the aggregates' columns come from.
type pathStep struct {
	j    *join
	side int
}

// eagerFns are the aggregations that split into one over groups' rows
// below a join and one over those groups' results above it: the latter's.
var eagerFns = map[string]string{"sum": "sum", "count": "sum", "size": "sum", "min": "min", "max": "max"}

// on is the join's key columns on side (0 left, 1 right).
func (j *join) on(side int) []string {
	if side == 1 {
		return j.spec.RightOn
	}
	return j.spec.LeftOn
}

// source is where a join's output column comes from: the side and its
// name there (a shared key, from the left).
func (j *join) source(name string) (int, string, bool) {
	i := slices.IndexFunc(j.spec.Cols, func(c exchange.JoinCol) bool { return c.Name == name })
	if i < 0 {
		return 0, "", false
	}
	c := j.spec.Cols[i]
	if c.Key >= 0 {
		return 0, j.spec.LeftOn[c.Key], true
	}
	return c.Side, c.Src, true
}

// onlyKeys reports whether the keys that stay on a join's side are its join
// keys on that side.
func onlyKeys(stay map[string]string, j *join, side int) bool {
	for _, name := range stay {
		if !slices.Contains(j.on(side), name) {
			return false
		}
	}
	return true
}

// traceDown follows a column from the top of path (joins, each with the
// side the path takes) down: ok where it leaves the path by another side
// or ends in kept.
func traceDown(path []pathStep, name string, kept map[string]bool) bool {
	for _, s := range path {
		side, src, ok := s.j.source(name)
		if !ok {
			return false
		}
		if side != s.side {
			return true
		}
		name = src
	}
	return kept[name]
}

// keepsRows reports whether a step holds every row of the tables it reads:
// a read without a filter, or an inner join of such (a table meeting its
// dimensions by their keys).
func keepsRows(n Node) bool {
	switch n := n.(type) {
	case *Source:
		return !selective(n.pred)
	case *project:
		return keepsRows(n.child)
	case *assign:
		return keepsRows(n.child)
	case *join:
		return n.spec.How == kernel.Inner && keepsRows(n.left) && keepsRows(n.right)
	}
	return false
}
