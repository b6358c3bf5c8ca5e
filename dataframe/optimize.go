package dataframe

import (
	"maps"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
)

// optimize rewrites a plan into one that computes the same frame with less
// work: filters move toward the data (below projections, computed columns
// they do not read, shuffles, sorts and joins, and into readers), columns
// no later step uses are never read or moved, and shuffles of data already
// partitioned as needed are dropped. Partition-wise chains left between
// shuffles are fused later, when the graph is built (graph.Fuse).
func optimize(n node) node {
	out := rewrite(n, func(n node) node {
		if f, ok := n.(*filter); ok {
			return pushFilter(f.pred, f.child)
		}
		return n
	})
	out = pruneTo(out, setOf{}.add(names(n.schema())...))
	out = rewrite(out, func(n node) node {
		if s, ok := n.(*hashShuffle); ok && s.child.partitioning().hashedBy(s.cols, s.n) {
			return s.child
		}
		return n
	})
	if !out.schema().Equal(n.schema()) {
		out = newProject(out, names(n.schema()))
	}
	return out
}

// rewrite applies fn to every node of a plan, inputs first.
func rewrite(n node, fn func(node) node) node {
	out, _ := rewriteErr(n, func(n node) (node, error) { return fn(n), nil })
	return out
}

// rewriteErr is rewrite with a step that may fail, which stops it.
func rewriteErr(n node, fn func(node) (node, error)) (node, error) {
	kids := n.children()
	if len(kids) > 0 {
		changed := false
		next := make([]node, len(kids))
		for i, c := range kids {
			var err error
			if next[i], err = rewriteErr(c, fn); err != nil {
				return nil, err
			}
			changed = changed || next[i] != c
		}
		if changed {
			n = n.with(next)
		}
	}
	return fn(n)
}

// and is a ∧ b, either of which may be nil.
func and(a, b *expr.Node) *expr.Node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return &expr.Node{Op: "and", Args: []*expr.Node{a, b}}
}

// andNew is a ∧ b without b's conjuncts that a has already (a predicate
// derived again where a filter is pushed a second time).
func andNew(a, b *expr.Node) *expr.Node {
	if a == nil || b == nil {
		return and(a, b)
	}
	have := map[string]bool{}
	for _, c := range conjuncts(a) {
		have[c.String()] = true
	}
	for _, c := range conjuncts(b) {
		if !have[c.String()] {
			a = and(a, c)
		}
	}
	return a
}

// or is a ∨ b, a of which may be nil.
func or(a, b *expr.Node) *expr.Node {
	if a == nil {
		return b
	}
	return &expr.Node{Op: "or", Args: []*expr.Node{a, b}}
}

// disjuncts splits a predicate at its top-level ors.
func disjuncts(e *expr.Node) []*expr.Node {
	if e.Op == "or" {
		return append(disjuncts(e.Args[0]), disjuncts(e.Args[1])...)
	}
	return []*expr.Node{e}
}

// conjuncts splits a predicate at its top-level ands.
func conjuncts(e *expr.Node) []*expr.Node {
	if e.Op == "and" {
		return append(conjuncts(e.Args[0]), conjuncts(e.Args[1])...)
	}
	return []*expr.Node{e}
}

// renamed is e reading the columns renames maps to instead.
func renamed(e *expr.Node, renames map[string]string) *expr.Node {
	c := *e
	if c.Op == "col" {
		c.Name = renames[c.Name]
	}
	c.Args = make([]*expr.Node, len(e.Args))
	for i, a := range e.Args {
		c.Args[i] = renamed(a, renames)
	}
	return &c
}

// pushFilter returns a plan equal to c filtered by pred, with pred as close
// to the data as it can go.
func pushFilter(pred *expr.Node, c node) node {
	reads := pred.Columns(setOf{})
	switch c := c.(type) {
	case *source:
		return c.narrowed(c.cols, andNew(c.pred, pred))
	case *filter:
		return pushFilter(and(c.pred, pred), c.child)
	case *project:
		return newProject(pushFilter(pred, c.child), c.cols)
	case *assign:
		if !reads[c.col] {
			return newAssign(pushFilter(pred, c.child), c.col, c.expr)
		}
	case *hashShuffle:
		return newHashShuffle(pushFilter(pred, c.child), c.cols, c.n)
	case *sorted:
		return newSort(pushFilter(pred, c.child), c.args)
	case *repartition:
		return newRepartition(pushFilter(pred, c.child), c.outs)
	case *loc:
		return newLoc(pushFilter(pred, c.child), c.args)
	case *dedup:
		if c.subset == nil {
			return newDedup(pushFilter(pred, c.child), nil)
		}
	case *groupAgg:
		// A filter on the keys drops whole groups: it can run first.
		if c.args.Mode == modeApply {
			break
		}
		var below, above *expr.Node
		for _, e := range conjuncts(pred) {
			if cols := e.Columns(setOf{}); len(cols) > 0 && allIn(cols, c.args.Keys) {
				below = and(below, e)
			} else {
				above = and(above, e)
			}
		}
		if below != nil {
			var out node = newGroupAgg(pushFilter(below, c.child), c.args, c.out, c.splitOut)
			if above != nil {
				out = newFilter(out, above)
			}
			return out
		}
	case *join:
		return pushIntoJoin(pred, c)
	}
	return newFilter(c, pred)
}

func allIn(set setOf, cols []string) bool {
	for c := range set {
		if !slices.Contains(cols, c) {
			return false
		}
	}
	return true
}

// pushIntoJoin moves each conjunct of pred that reads one side's columns
// only to that side, where the join keeps every row of the side it
// filters: left for inner and left joins, right for inner and right. A
// conjunct that reads both sides and is a disjunction stays above the
// join, but what it implies of one side's rows goes to that side too
// (sideOfOr; as Spark's PushExtraPredicateThroughJoin).
func pushIntoJoin(pred *expr.Node, j *join) node {
	how := j.spec.How
	canLeft, canRight := keepsLeft(how), how == kernel.Inner || how == kernel.Right
	var left, right, rest *expr.Node
	for _, e := range conjuncts(pred) {
		toLeft, toRight := j.sides(e)
		pushed := false
		if toLeft != nil && canLeft {
			left, pushed = and(left, renamed(e, toLeft)), true
		}
		if toRight != nil && canRight {
			right, pushed = and(right, renamed(e, toRight)), true
		}
		if pushed {
			continue
		}
		rest = and(rest, e)
		if e.Op != "or" {
			continue
		}
		if d := j.sideOfOr(e, 0); d != nil && canLeft {
			left = and(left, d)
		}
		if d := j.sideOfOr(e, 1); d != nil && canRight {
			right = and(right, d)
		}
	}
	l, r := j.left, j.right
	if left != nil {
		l = pushFilter(left, l)
	}
	if right != nil {
		r = pushFilter(right, r)
	}
	var out node = j
	if l != j.left || r != j.right {
		out = newJoin(l, r, j.spec)
	}
	if rest != nil {
		out = newFilter(out, rest)
	}
	return out
}

// sides returns the renames that make e read the left side's columns and
// the right side's, each nil where e reads a column the side lacks.
func (j *join) sides(e *expr.Node) (toLeft, toRight map[string]string) {
	toLeft, toRight = map[string]string{}, map[string]string{}
	for col := range e.Columns(setOf{}) {
		i := slices.IndexFunc(j.spec.Cols, func(c joinCol) bool { return c.Name == col })
		if i < 0 {
			return nil, nil
		}
		c := j.spec.Cols[i]
		switch {
		case c.Key >= 0:
			if toLeft != nil {
				toLeft[col] = j.spec.LeftOn[c.Key]
			}
			if toRight != nil {
				toRight[col] = j.spec.RightOn[c.Key]
			}
		case c.Side == 0:
			toRight = nil
			if toLeft != nil {
				toLeft[col] = c.Src
			}
		default:
			toLeft = nil
			if toRight != nil {
				toRight[col] = c.Src
			}
		}
	}
	return toLeft, toRight
}

// sideOfOr is what the disjunction e implies of one side's rows (0: the
// left, 1: the right): the disjunction of each disjunct's conjuncts that
// read that side only, in its columns; nil where some disjunct has none.
// TPC-H's q19 keeps the lines of three brands' parts, each with its own
// containers, sizes and quantities: its parts are read where one of the
// three holds of the part alone (2,000 of 2 million at SF10) and its lines
// where a quantity is within one of the three ranges.
func (j *join) sideOfOr(e *expr.Node, side int) *expr.Node {
	var out *expr.Node
	for _, d := range disjuncts(e) {
		var part *expr.Node
		for _, c := range conjuncts(d) {
			toLeft, toRight := j.sides(c)
			if to := []map[string]string{toLeft, toRight}[side]; to != nil && len(c.Columns(setOf{})) > 0 {
				part = and(part, renamed(c, to))
			}
		}
		if part == nil {
			return nil
		}
		out = or(out, part)
	}
	return out
}

// pruneTo returns n narrowed to compute at least the columns in need,
// leaving out work for the others: readers skip them, computed ones are not
// computed, and joins and shuffles do not move them. A step the plan holds
// more than once (a frame used twice, as a query's subquery on lineitem
// and its main scan) is narrowed to what all its uses need together, so
// that it stays one step, computed once.
func pruneTo(n node, need setOf) node {
	p := pruner{wants: map[string]setOf{}}
	for {
		p.grew = false
		out := p.prune(n, need)
		if !p.grew {
			return out
		}
	}
}

// pruner narrows a plan, gathering what each step is asked for, by its
// name, over every use: passes repeat until no step is asked for more.
type pruner struct {
	wants map[string]setOf
	grew  bool
}

// want adds need to what n is asked for, and returns all of that.
func (p *pruner) want(n node, need setOf) setOf {
	w := p.wants[n.name()]
	if w == nil {
		w = setOf{}
		p.wants[n.name()] = w
	}
	for c := range need {
		if !w[c] {
			w[c], p.grew = true, true
		}
	}
	return setOf{}.add(slices.Collect(maps.Keys(w))...)
}

func (p *pruner) prune(n node, need setOf) node {
	need = p.want(n, need)
	atLeastOne := func(cols []string, s *arrow.Schema) []string {
		if len(cols) == 0 && s.NumFields() > 0 {
			return []string{s.Field(0).Name}
		}
		return cols
	}
	with := func(cols ...string) setOf {
		s := setOf{}
		for c := range need {
			s[c] = true
		}
		return s.add(cols...)
	}
	all := func(c node) node { return p.prune(c, setOf{}.add(names(c.schema())...)) }
	switch n := n.(type) {
	case *source:
		cols := atLeastOne(need.in(n.full), n.full)
		if len(cols) == n.full.NumFields() {
			cols = nil
		}
		return n.narrowed(cols, n.pred)
	case *project:
		var cols []string
		for _, c := range n.cols {
			if need[c] {
				cols = append(cols, c)
			}
		}
		cols = atLeastOne(cols, n.out)
		return newProject(p.prune(n.child, setOf{}.add(cols...)), cols)
	case *filter:
		return newFilter(p.prune(n.child, n.pred.Columns(with())), n.pred)
	case *assign:
		if !need[n.col] {
			return p.prune(n.child, need)
		}
		childNeed := with()
		delete(childNeed, n.col)
		return newAssign(p.prune(n.child, n.expr.Columns(childNeed)), n.col, n.expr)
	case *groupAgg:
		return newGroupAgg(p.prune(n.child, n.needs()), n.args, n.out, n.splitOut)
	case *join:
		spec := n.spec
		spec.Cols = nil
		ln, rn := setOf{}.add(spec.LeftOn...), setOf{}.add(spec.RightOn...)
		for _, c := range n.spec.Cols {
			if !need[c.Name] {
				continue
			}
			spec.Cols = append(spec.Cols, c)
			if c.Side == 0 {
				ln.add(c.Src)
			} else {
				rn.add(c.Src)
			}
		}
		if len(spec.Cols) == 0 { // nothing above reads a column: keep one, read too
			c := n.spec.Cols[0]
			spec.Cols = []joinCol{c}
			if c.Side == 0 {
				ln.add(c.Src)
			} else {
				rn.add(c.Src)
			}
		}
		return newJoin(p.prune(n.left, ln), p.prune(n.right, rn), spec)
	case *hashShuffle:
		return newHashShuffle(p.prune(n.child, with(n.cols...)), n.cols, n.n)
	case *sorted:
		return newSort(p.prune(n.child, with(n.args.By...)), n.args)
	case *top:
		return newTop(p.prune(n.child, with(n.args.By...)), n.args)
	case *loc:
		return newLoc(p.prune(n.child, with(n.args.Col)), n.args)
	case *repartition:
		return newRepartition(p.prune(n.child, need), n.outs)
	case *dedup:
		if n.subset == nil {
			return newDedup(all(n.child), nil)
		}
		return newDedup(p.prune(n.child, with(n.subset...)), n.subset)
	case *mapPartitions:
		return newMapPartitions(all(n.child), n.fn, n.out)
	case *renaming:
		return newRename(p.prune(n.child, n.childNeed(need)), n.names)
	case *mapNode:
		if n.op == opSampleN { // keeps whole rows: any columns do
			c := p.prune(n.child, need)
			return newMapNode(c, n.prefix, n.op, n.args, c.schema(), n.about)
		}
	case *limited:
		return newLimit(p.prune(n.child, need), n.args.N, n.args.Last)
	case *needing:
		return newNeeds(p.prune(n.child, need), n.res)
	case *stacked:
		var fields []arrow.Field
		for _, c := range atLeastOne(need.in(n.out), n.out) {
			fields = append(fields, n.out.Field(n.out.FieldIndices(c)[0]))
		}
		parts := make([]node, len(n.parts))
		for i, c := range n.parts {
			parts[i] = p.prune(c, setOf{}.add(atLeastOne(need.in(c.schema()), c.schema())...))
		}
		return newConcat(parts, arrow.NewSchema(fields, nil))
	case *persisted:
		// Partitions held in memory cost nothing to narrow, and a shuffle
		// or join above them then moves only the columns it needs.
		if cols := atLeastOne(need.in(n.out), n.out); len(cols) < n.out.NumFields() {
			return newProject(n, cols)
		}
	}
	return n
}
