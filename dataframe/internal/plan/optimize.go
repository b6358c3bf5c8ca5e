package plan

import (
	"maps"
	"slices"

	"github.com/duskdata/dusk/dataframe/internal/agg"
	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
)

// Optimize rewrites a plan into one that computes the same frame with less
// work: filters move toward the data (below projections, computed columns
// they do not read, shuffles, sorts and joins, and into readers), columns
// no later step uses are never read or moved, and shuffles of data already
// partitioned as needed are dropped. Partition-wise chains left between
// shuffles are fused later, when the graph is built (graph.Fuse).
func Optimize(n Node) Node {
	out := rewrite(n, func(n Node) Node {
		if f, ok := n.(*filter); ok {
			return pushFilter(f.pred, f.child)
		}
		return n
	})
	out = PruneTo(out, ops.SetOf{}.Add(Names(n.Schema())...))
	out = rewrite(out, func(n Node) Node {
		if s, ok := n.(*hashShuffle); ok && s.child.Partitioning().hashedBy(s.cols, s.n) {
			return s.child
		}
		return n
	})
	out = rewrite(out, eagerAgg)
	out = rewrite(out, flipForRanges)
	out = shareScans(out)
	if !out.Schema().Equal(n.Schema()) {
		out = NewProject(out, Names(n.Schema()))
	}
	return out
}

// flipForRanges turns an inner join around where its left side is the
// one read by the key ranges of the other's partitions (see byRanges):
// SQL's FROM orders, lineitem joins the lines to the orders of their
// ranges as the dataframe API's lines.Merge(orders) does.
func flipForRanges(n Node) Node {
	j, ok := n.(*join)
	if !ok || j.spec.How != kernel.Inner || j.strategy() == joinRanges || j.strategy() == joinPartitioned {
		return n
	}
	spec := j.spec
	spec.LeftOn, spec.RightOn = j.spec.RightOn, j.spec.LeftOn
	spec.Cols = make([]exchange.JoinCol, len(j.spec.Cols))
	for i, c := range j.spec.Cols {
		if c.Key >= 0 && !arrow.TypeEqual(typeOf(j.left, j.spec.LeftOn[c.Key]), typeOf(j.right, j.spec.RightOn[c.Key])) {
			return n // a shared key takes the left side's type
		}
		c.Side = 1 - c.Side
		spec.Cols[i] = c
	}
	if f := NewJoin(j.right, j.left, spec); f.ranges().ok {
		return f
	}
	return n
}

// typeOf is the type of n's column col (nil: none such).
func typeOf(n Node, col string) arrow.DataType {
	if i := n.Schema().FieldIndices(col); len(i) > 0 {
		return n.Schema().Field(i[0]).Type
	}
	return nil
}

// shareScans makes an inner join that would read a file filtered by the
// keys of its broadcast side read instead a semi join of the plan that
// reads the same file with the keys of the same rows: S ⋈ B is
// (S ⋉ B) ⋈ B, and the file is read once for both (TPC-H q17 in SQL: the
// lines of the chosen parts, joined to the parts and averaged per part).
// The semi join then keeps every column it reads, for both.
func shareScans(n Node) Node {
	semis, used := map[string]*join{}, map[string]bool{}
	eachStep(n, func(n Node) {
		if j, ok := n.(*join); ok && j.spec.How == kernel.Semi {
			if k := j.scanned(); k != "" {
				semis[k] = j
			}
		}
	})
	eachStep(n, func(n Node) {
		if j, ok := n.(*join); ok && j.spec.How == kernel.Inner {
			if semi := semis[j.scanned()]; semi != nil {
				used[semi.Name()] = true
			}
		}
	})
	if len(used) == 0 {
		return n
	}
	wide := map[string]Node{}
	widened := func(semi *join) Node {
		if w := wide[semi.Name()]; w != nil {
			return w
		}
		spec := semi.spec
		spec.Cols = slices.Clone(spec.Cols)
		for _, f := range semi.left.Schema().Fields() {
			if !slices.ContainsFunc(spec.Cols, func(c exchange.JoinCol) bool { return c.Name == f.Name }) {
				spec.Cols = append(spec.Cols, exchange.JoinCol{Side: 0, Src: f.Name, Name: f.Name, Key: -1})
			}
		}
		wide[semi.Name()] = NewJoin(semi.left, semi.right, spec)
		return wide[semi.Name()]
	}
	return rewrite(n, func(n Node) Node {
		j, ok := n.(*join)
		switch {
		case !ok:
			return n
		case used[j.Name()]:
			return NewProject(widened(j), Names(j.Schema()))
		case j.spec.How != kernel.Inner:
			return n
		}
		semi := semis[j.scanned()]
		switch _, probeLeft := j.scan(); {
		case semi == nil:
			return n
		case probeLeft:
			return NewJoin(widened(semi), j.right, j.spec)
		default:
			return NewJoin(j.left, widened(semi), j.spec)
		}
	})
}

// scanned names what a join that reads a file filtered by the keys of its
// broadcast side reads: the read, its key, and the broadcast rows' keys;
// "" for another join.
func (j *join) scanned() string {
	s, probeLeft := j.scan()
	if s == nil {
		return ""
	}
	build, key, buildKey := j.left, j.spec.RightOn[0], j.spec.LeftOn[0]
	if probeLeft {
		build, key, buildKey = j.right, j.spec.LeftOn[0], j.spec.RightOn[0]
	}
	if p, ok := build.(*project); ok {
		build = p.child
	}
	name := build.Name()
	if b, ok := build.(*Source); ok {
		name = b.narrowed([]string{buildKey}, b.pred).Name() // its keys, whatever else it reads
	}
	return s.Name() + "\x00" + key + "\x00" + name
}

// rewrite applies fn to every node of a plan, inputs first.
func rewrite(n Node, fn func(Node) Node) Node {
	out, _ := rewriteErr(n, func(n Node) (Node, error) { return fn(n), nil })
	return out
}

// rewriteErr is rewrite with a step that may fail, which stops it.
func rewriteErr(n Node, fn func(Node) (Node, error)) (Node, error) {
	kids := n.children()
	if len(kids) > 0 {
		changed := false
		next := make([]Node, len(kids))
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

// andNew is a ∧ b without b's conjuncts that a has already (a predicate
// derived again where a filter is pushed a second time).
func andNew(a, b *expr.Node) *expr.Node {
	if a == nil || b == nil {
		return expr.And(a, b)
	}
	have := map[string]bool{}
	for _, c := range expr.Conjuncts(a) {
		have[c.String()] = true
	}
	for _, c := range expr.Conjuncts(b) {
		if !have[c.String()] {
			a = expr.And(a, c)
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
func pushFilter(pred *expr.Node, c Node) Node {
	reads := pred.Columns(ops.SetOf{})
	switch c := c.(type) {
	case *Source:
		return c.narrowed(c.cols, andNew(c.pred, pred))
	case *filter:
		return pushFilter(expr.And(c.pred, pred), c.child)
	case *project:
		return NewProject(pushFilter(pred, c.child), c.cols)
	case *assign:
		if !reads[c.col] {
			return NewAssign(pushFilter(pred, c.child), c.col, c.expr)
		}
	case *hashShuffle:
		return NewHashShuffle(pushFilter(pred, c.child), c.cols, c.n)
	case *Sorted:
		return NewSort(pushFilter(pred, c.Child), c.Args)
	case *repartition:
		return NewRepartition(pushFilter(pred, c.child), c.outs)
	case *loc:
		return NewLoc(pushFilter(pred, c.child), c.args)
	case *renaming:
		back := map[string]string{}
		for col := range reads {
			back[col] = col
		}
		for old, new := range c.names {
			if reads[new] {
				back[new] = old
			}
		}
		return NewRename(pushFilter(renamed(pred, back), c.child), c.names)
	case *dedup:
		if c.subset == nil {
			return NewDedup(pushFilter(pred, c.child), nil)
		}
	case *groupAgg:
		// A filter on the keys drops whole groups: it can run first.
		if c.args.Mode == agg.ModeApply {
			break
		}
		var below, above *expr.Node
		for _, e := range expr.Conjuncts(pred) {
			if cols := e.Columns(ops.SetOf{}); len(cols) > 0 && allIn(cols, c.args.Keys) {
				below = expr.And(below, e)
			} else {
				above = expr.And(above, e)
			}
		}
		if below != nil {
			var out Node = NewGroupAgg(pushFilter(below, c.child), c.args, c.out, c.splitOut)
			if above != nil {
				out = NewFilter(out, above)
			}
			return out
		}
	case *join:
		return pushIntoJoin(pred, c)
	}
	return NewFilter(c, pred)
}

func allIn(set ops.SetOf, cols []string) bool {
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
func pushIntoJoin(pred *expr.Node, j *join) Node {
	how := j.spec.How
	canLeft, canRight := keepsLeft(how), how == kernel.Inner || how == kernel.Right
	var left, right, rest *expr.Node
	for _, e := range expr.Conjuncts(pred) {
		toLeft, toRight := j.sides(e)
		pushed := false
		if toLeft != nil && canLeft {
			left, pushed = expr.And(left, renamed(e, toLeft)), true
		}
		if toRight != nil && canRight {
			right, pushed = expr.And(right, renamed(e, toRight)), true
		}
		if pushed {
			continue
		}
		rest = expr.And(rest, e)
		if e.Op != "or" {
			continue
		}
		if d := j.sideOfOr(e, 0); d != nil && canLeft {
			left = expr.And(left, d)
		}
		if d := j.sideOfOr(e, 1); d != nil && canRight {
			right = expr.And(right, d)
		}
	}
	l, r := j.left, j.right
	if left != nil {
		l = pushFilter(left, l)
	}
	if right != nil {
		r = pushFilter(right, r)
	}
	var out Node = j
	if l != j.left || r != j.right {
		out = NewJoin(l, r, j.spec)
	}
	if rest != nil {
		out = NewFilter(out, rest)
	}
	return out
}

// sides returns the renames that make e read the left side's columns and
// the right side's, each nil where e reads a column the side lacks.
func (j *join) sides(e *expr.Node) (toLeft, toRight map[string]string) {
	toLeft, toRight = map[string]string{}, map[string]string{}
	for col := range e.Columns(ops.SetOf{}) {
		i := slices.IndexFunc(j.spec.Cols, func(c exchange.JoinCol) bool { return c.Name == col })
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
		for _, c := range expr.Conjuncts(d) {
			toLeft, toRight := j.sides(c)
			if to := []map[string]string{toLeft, toRight}[side]; to != nil && len(c.Columns(ops.SetOf{})) > 0 {
				part = expr.And(part, renamed(c, to))
			}
		}
		if part == nil {
			return nil
		}
		out = or(out, part)
	}
	return out
}

// PruneTo returns n narrowed to compute at least the columns in need,
// leaving out work for the others: readers skip them, computed ones are not
// computed, and joins and shuffles do not move them. A step the plan holds
// more than once (a frame used twice, as a query's subquery on lineitem
// and its main scan) is narrowed to what all its uses need together, so
// that it stays one step, computed once.
func PruneTo(n Node, need ops.SetOf) Node {
	p := pruner{wants: map[string]ops.SetOf{}}
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
	wants map[string]ops.SetOf
	grew  bool
}

// want adds need to what n is asked for, and returns all of that.
func (p *pruner) want(n Node, need ops.SetOf) ops.SetOf {
	w := p.wants[n.Name()]
	if w == nil {
		w = ops.SetOf{}
		p.wants[n.Name()] = w
	}
	for c := range need {
		if !w[c] {
			w[c], p.grew = true, true
		}
	}
	return ops.SetOf{}.Add(slices.Collect(maps.Keys(w))...)
}

func (p *pruner) prune(n Node, need ops.SetOf) Node {
	need = p.want(n, need)
	atLeastOne := func(cols []string, s *arrow.Schema) []string {
		if len(cols) == 0 && s.NumFields() > 0 {
			return []string{s.Field(0).Name}
		}
		return cols
	}
	with := func(cols ...string) ops.SetOf {
		s := ops.SetOf{}
		for c := range need {
			s[c] = true
		}
		return s.Add(cols...)
	}
	all := func(c Node) Node { return p.prune(c, ops.SetOf{}.Add(Names(c.Schema())...)) }
	switch n := n.(type) {
	case *Source:
		cols := need.In(n.full)
		if len(cols) == 0 && n.pred != nil {
			// Nothing above reads a column (a count): one the filter
			// reads anyway, rather than another decoded whole for nothing.
			if read := ops.SetOf(n.pred.Columns(ops.SetOf{})).In(n.full); len(read) > 0 {
				cols = read[:1]
			}
		}
		cols = atLeastOne(cols, n.full)
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
		child := p.prune(n.child, ops.SetOf{}.Add(cols...))
		if slices.Equal(Names(child.Schema()), cols) {
			return child // narrowed below already (a filter keeps only these)
		}
		return NewProject(child, cols)
	case *filter:
		child := p.prune(n.child, n.pred.Columns(with()))
		var keep []string
		for _, f := range child.Schema().Fields() {
			if need[f.Name] {
				keep = append(keep, f.Name)
			}
		}
		keep = atLeastOne(keep, child.Schema())
		if len(keep) == child.Schema().NumFields() {
			keep = nil
		}
		return newFilterKeep(child, n.pred, keep)
	case *assign:
		if !need[n.col] {
			return p.prune(n.child, need)
		}
		childNeed := with()
		delete(childNeed, n.col)
		return NewAssign(p.prune(n.child, n.expr.Columns(childNeed)), n.col, n.expr)
	case *groupAgg:
		return NewGroupAgg(p.prune(n.child, n.needs()), n.args, n.out, n.splitOut)
	case *join:
		spec := n.spec
		spec.Cols = nil
		ln, rn := ops.SetOf{}.Add(spec.LeftOn...), ops.SetOf{}.Add(spec.RightOn...)
		for _, c := range n.spec.Cols {
			if !need[c.Name] {
				continue
			}
			spec.Cols = append(spec.Cols, c)
			if c.Side == 0 {
				ln.Add(c.Src)
			} else {
				rn.Add(c.Src)
			}
		}
		if len(spec.Cols) == 0 { // nothing above reads a column: keep one, read too
			c := n.spec.Cols[0]
			spec.Cols = []exchange.JoinCol{c}
			if c.Side == 0 {
				ln.Add(c.Src)
			} else {
				rn.Add(c.Src)
			}
		}
		return NewJoin(p.prune(n.left, ln), p.prune(n.right, rn), spec)
	case *hashShuffle:
		return NewHashShuffle(p.prune(n.child, with(n.cols...)), n.cols, n.n)
	case *Sorted:
		return NewSort(p.prune(n.Child, with(n.Args.By...)), n.Args)
	case *top:
		return NewTop(p.prune(n.child, with(n.args.By...)), n.args)
	case *loc:
		return NewLoc(p.prune(n.child, with(n.args.Col)), n.args)
	case *repartition:
		return NewRepartition(p.prune(n.child, need), n.outs)
	case *dedup:
		if n.subset == nil {
			return NewDedup(all(n.child), nil)
		}
		return NewDedup(p.prune(n.child, with(n.subset...)), n.subset)
	case *mapPartitions:
		return NewMapPartitions(all(n.child), n.fn, n.out)
	case *renaming:
		return NewRename(p.prune(n.child, n.childNeed(need)), n.names)
	case *mapNode:
		if n.op == ops.OpSampleN { // keeps whole rows: any columns do
			c := p.prune(n.child, need)
			return NewMapNode(c, n.prefix, n.op, n.args, c.Schema(), n.about)
		}
	case *limited:
		return NewLimit(p.prune(n.child, need), n.args.N, n.args.Last)
	case *skipped:
		return NewSkip(p.prune(n.child, need), n.n)
	case *needing:
		return NewNeeds(p.prune(n.child, need), n.res)
	case *stacked:
		var fields []arrow.Field
		for _, c := range atLeastOne(need.In(n.out), n.out) {
			fields = append(fields, n.out.Field(n.out.FieldIndices(c)[0]))
		}
		parts := make([]Node, len(n.parts))
		for i, c := range n.parts {
			parts[i] = p.prune(c, ops.SetOf{}.Add(atLeastOne(need.In(c.Schema()), c.Schema())...))
		}
		return NewConcat(parts, arrow.NewSchema(fields, nil))
	case *Persisted:
		// Partitions held in memory cost nothing to narrow, and a shuffle
		// or join above them then moves only the columns it needs.
		if cols := atLeastOne(need.In(n.Out), n.Out); len(cols) < n.Out.NumFields() {
			return NewProject(n, cols)
		}
	}
	return n
}
