package sql

import (
	"fmt"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/duskdata/dusk/dataframe"
)

// Subqueries become joins, as DuckDB and Spark decorrelate them: EXISTS
// and IN a semi join, NOT EXISTS and NOT IN an anti join, a comparison
// with a scalar subquery a join with the subquery's value (grouped by the
// columns it is correlated on, where it is) and a filter. A correlated
// subquery may tie its rows to the outer ones by equalities only.

// hasSubLink reports whether n holds a subquery (outside nested ones).
func hasSubLink(n *pg.Node) bool {
	if n == nil || n.Node == nil {
		return false
	}
	if n.GetSubLink() != nil {
		return true
	}
	for _, c := range children(n) {
		if hasSubLink(c) {
			return true
		}
	}
	return false
}

// subqueryFilter applies a WHERE or HAVING conjunct that holds a subquery
// to the relation rel, bound in scope sc (rel's rows, or its groups).
func (b *binder) subqueryFilter(c *pg.Node, rel *relation, sc scope) (*relation, error) {
	negated := false
	inner := c
	if be := c.GetBoolExpr(); be != nil && be.Boolop == pg.BoolExprType_NOT_EXPR {
		negated, inner = true, be.Args[0]
	}
	if sl := inner.GetSubLink(); sl != nil {
		sub := sl.Subselect.GetSelectStmt()
		switch sl.SubLinkType {
		case pg.SubLinkType_EXISTS_SUBLINK:
			return b.exists(inner, sub, rel, negated)
		case pg.SubLinkType_ANY_SUBLINK:
			if op := strs(sl.OperName); len(op) > 0 && op[0] != "=" {
				break
			}
			return b.in(inner, sl, sub, rel, sc, negated)
		}
	}
	if ae := c.GetAExpr(); ae != nil && ae.Kind == pg.A_Expr_Kind_AEXPR_OP {
		if sl := ae.Rexpr.GetSubLink(); sl != nil && sl.SubLinkType == pg.SubLinkType_EXPR_SUBLINK {
			return b.compareScalar(c, ae, sl.Subselect.GetSelectStmt(), rel, sc)
		}
	}
	return nil, b.errorf(c, "this use of a subquery is not supported yet (EXISTS, IN and comparisons with a scalar subquery are)")
}

// correlation is a subquery's tie to the outer rows: pairs of an outer
// column's field and an inner column, equal.
type correlation struct {
	outer []string
	inner []column
	// residual are conditions inner op outer other than equality, which
	// EXISTS takes (one of them) by the inner column's extremes per key.
	residual []residual
}

// residual is inner op outer, op one of <>, <, <=, >, >=.
type residual struct {
	n     *pg.Node
	inner column
	op    string
	outer string // field
}

// correlate binds a subquery's FROM and takes the equalities between its
// columns and outer ones out of its WHERE; the rest must read its own
// columns alone. It returns the subquery with those equalities removed.
func (b *binder) correlate(sub *pg.SelectStmt, outer *relation) (*pg.SelectStmt, correlation, error) {
	var corr correlation
	if sub.WhereClause == nil {
		return sub, corr, nil
	}
	conjuncts := splitAnd(sub.WhereClause)
	innerFrom, _, err := b.from(sub.FromClause, conjuncts) // to resolve names; joined again when bound
	if err != nil {
		return nil, corr, err
	}
	var rest []*pg.Node
	for _, c := range conjuncts {
		if o, i, op, ok := b.correlationKey(c, outer, innerFrom); ok {
			if op == "=" {
				corr.outer, corr.inner = append(corr.outer, o), append(corr.inner, i)
			} else {
				corr.residual = append(corr.residual, residual{n: c, inner: i, op: op, outer: o})
			}
			continue
		}
		rest = append(rest, c)
	}
	out := proto.Clone(sub).(*pg.SelectStmt)
	out.WhereClause = andOf(rest)
	return out, corr, nil
}

// flipped is the operator with its operands swapped.
var flipped = map[string]string{"=": "=", "<>": "<>", "!=": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// correlationKey reports whether c compares an inner column with an outer
// one: a column that resolves within the subquery against one that
// resolves outside it only (names resolve in the innermost scope first),
// and the operator as inner op outer.
func (b *binder) correlationKey(c *pg.Node, outer, inner *relation) (string, column, string, bool) {
	ae := c.GetAExpr()
	if ae == nil || ae.Kind != pg.A_Expr_Kind_AEXPR_OP || len(strs(ae.Name)) != 1 {
		return "", column{}, "", false
	}
	op := strs(ae.Name)[0]
	if _, ok := flipped[op]; !ok {
		return "", column{}, "", false
	}
	l, r := ae.Lexpr.GetColumnRef(), ae.Rexpr.GetColumnRef()
	if l == nil || r == nil {
		return "", column{}, "", false
	}
	try := func(in, out *pg.ColumnRef) (string, column, bool) {
		ic, err := inner.resolve(strs(in.Fields))
		if err != nil {
			return "", column{}, false
		}
		if _, err := inner.resolve(strs(out.Fields)); err == nil {
			return "", column{}, false // both inner: not a correlation
		}
		oc, err := outer.resolve(strs(out.Fields))
		if err != nil {
			return "", column{}, false
		}
		return oc.field, ic, true
	}
	if o, i, ok := try(l, r); ok {
		return o, i, flipped[flipped[op]], true
	}
	o, i, ok := try(r, l)
	return o, i, flipped[op], ok
}

func andOf(ns []*pg.Node) *pg.Node {
	switch len(ns) {
	case 0:
		return nil
	case 1:
		return ns[0]
	}
	return &pg.Node{Node: &pg.Node_BoolExpr{BoolExpr: &pg.BoolExpr{Boolop: pg.BoolExprType_AND_EXPR, Args: ns, Location: -1}}}
}

// ref is a column reference node to c.
func ref(c column) *pg.Node {
	fields := []*pg.Node{pg.MakeStrNode(c.name)}
	if c.table != "" {
		fields = append([]*pg.Node{pg.MakeStrNode(c.table)}, fields...)
	}
	return &pg.Node{Node: &pg.Node_ColumnRef{ColumnRef: &pg.ColumnRef{Fields: fields, Location: -1}}}
}

// keyed is sub with the correlated inner columns first in its select list
// (named __sql_corr0...), grouped by them where group is set.
func (b *binder) keyed(sub *pg.SelectStmt, corr correlation, group bool) (*pg.SelectStmt, []string) {
	out := proto.Clone(sub).(*pg.SelectStmt)
	var targets, groups []*pg.Node
	names := make([]string, len(corr.inner))
	for i, c := range corr.inner {
		names[i] = fmt.Sprintf("__sql_corr%d", i)
		targets = append(targets, &pg.Node{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Name: names[i], Val: ref(c), Location: -1}}})
		groups = append(groups, ref(c))
	}
	out.TargetList = append(targets, sub.TargetList...)
	if group {
		out.GroupClause = append(groups, sub.GroupClause...)
	}
	return out, names
}

// reduced binds a subquery keyed by its correlation (keyed) with its rows
// first cut to those whose keys the outer rows have: a semi join with the
// outer rows' keys (a semi join needs them no more distinct than they
// come) before it groups, as DuckDB's and Spark's
// decorrelations do, so that its grouping covers the outer rows' keys, not
// the whole table (TPC-H q17's average quantity of the few parts chosen,
// not of every part). The outer rows are the same plan steps the query
// reads again (equal steps have equal keys: computed once).
func (b *binder) reduced(k *pg.SelectStmt, corr correlation, outer *relation) (*relation, error) {
	rows := outer.frame
	if by := outer.reduceBy; by != nil {
		if by.rows == nil {
			by.rows = rows
		}
		rows = by.rows
	}
	keys := rows.Select(corr.outer...)
	cols := corr.outer
	if o, fields, ok := outer.origin(corr.outer); ok {
		// The keys' own table, small and filtered, holds every key the
		// outer rows have: read again, it spares the reduction waiting on
		// the joins (TPC-H q17's parts, whose keys then filter the lines
		// as they are read).
		keys, cols = o.frame.Select(fields...), fields
	}
	b.restrict = &restriction{keys: keys, keyCols: cols, inner: corr.inner}
	defer func() { b.restrict = nil }()
	return b.selectStmt(k)
}

// restriction is a semi join the next SELECT bound applies to its rows
// once filtered, before it groups them: its inner columns against keys'.
type restriction struct {
	keys    *dataframe.Frame
	keyCols []string
	inner   []column
}

// apply semi-joins rel to the restriction's keys.
func (r *restriction) apply(b *binder, rel *relation) (*relation, error) {
	fields := make([]string, len(r.inner))
	for i, c := range r.inner {
		col, err := rel.resolve([]string{c.table, c.name})
		if err != nil {
			return nil, fmt.Errorf("sql: correlated column %s.%s: %w", c.table, c.name, err)
		}
		fields[i] = col.field
	}
	return rel.with(b.merge(rel.frame, r.keys, fields, r.keyCols, dataframe.Semi)), nil
}

// exists is [NOT] EXISTS (subquery): a semi (anti) join on the
// correlation's equalities.
func (b *binder) exists(n *pg.Node, sub *pg.SelectStmt, rel *relation, negated bool) (*relation, error) {
	sub, corr, err := b.correlate(sub, rel)
	if err != nil {
		return nil, err
	}
	if len(corr.outer) == 0 && len(corr.residual) == 0 {
		// Not correlated: whether the subquery has a row, once, paired
		// with every row.
		inner, err := b.selectStmt(sub)
		if err != nil {
			return nil, err
		}
		rows := b.hidden("rows")
		count := inner.frame.Agg(dataframe.Size().As(rows))
		has := dataframe.Col(rows).Gt(int64(0))
		if negated {
			has = has.Not()
		}
		joined := rel.frame.Merge(count, dataframe.MergeOptions{How: dataframe.Cross})
		return rel.with(joined.Filter(has).Drop(rows)), nil
	}
	switch len(corr.residual) {
	case 0:
	case 1:
		return b.existsBeyond(sub, corr, rel, negated)
	default:
		return nil, b.errorf(corr.residual[1].n, "EXISTS tied to the outer rows by more than one inequality is not supported yet")
	}
	k, names := b.keyed(sub, corr, false)
	k.TargetList = k.TargetList[:len(names)] // the keys alone
	inner, err := b.selectStmt(k)
	if err != nil {
		return nil, err
	}
	how := dataframe.Semi
	if negated {
		how = dataframe.Anti
	}
	return rel.with(b.merge(rel.frame, inner.frame, corr.outer, names, how)), nil
}

// in is x [NOT] IN (subquery) of one column: a semi join, or for NOT IN
// an anti join with SQL's nulls (notIn).
func (b *binder) in(n *pg.Node, sl *pg.SubLink, sub *pg.SelectStmt, rel *relation, sc scope, negated bool) (*relation, error) {
	sub, corr, err := b.correlate(sub, rel)
	if err != nil {
		return nil, err
	}
	if len(corr.residual) > 0 {
		return nil, b.errorf(corr.residual[0].n, "an IN subquery tied to the outer rows by an inequality is not supported yet")
	}
	k, names := b.keyed(sub, corr, false)
	inner, err := b.selectStmt(k)
	if err != nil {
		return nil, err
	}
	if len(inner.cols) != len(names)+1 {
		return nil, b.errorf(n, "an IN subquery must give one column, not %d", len(inner.cols)-len(names))
	}
	x, err := b.expr(sl.Testexpr, sc)
	if err != nil {
		return nil, err
	}
	f := rel.frame
	field, ok := plainColumn(x)
	if !ok {
		field = b.hidden("in")
		f = f.WithColumn(field, x)
	}
	lk, rk := append(slices.Clone(corr.outer), field), append(slices.Clone(names), inner.cols[len(names)].field)
	var out *dataframe.Frame
	if negated {
		out = b.notIn(f, inner.frame, corr.outer, names, field, rk[len(rk)-1])
	} else {
		out = b.merge(f, inner.frame, lk, rk, dataframe.Semi)
	}
	if !ok {
		out = out.Drop(field)
	}
	return rel.with(out), nil
}

// notIn keeps the rows of f where x NOT IN the values y of inner (those
// of the row's correlation keys, outer = names) is true: where there are
// no such values, or none is null and x is not null and is none of them.
// The count of the values and of the non-null ones per key tells which
// rows may pass; an anti join then drops those whose x is among them.
func (b *binder) notIn(f, inner *dataframe.Frame, outer, names []string, x, y string) *dataframe.Frame {
	lk, rk := append(slices.Clone(outer), x), append(slices.Clone(names), y)
	if f.NeverNull(x) && inner.NeverNull(y) {
		return b.merge(f, inner, lk, rk, dataframe.Anti) // no null to make it unknown (TPC-H q16)
	}
	rows, values := b.hidden("rows"), b.hidden("values")
	counts := []dataframe.Agg{dataframe.Size().As(rows), dataframe.Count(y).As(values)}
	var with *dataframe.Frame
	if len(names) == 0 {
		with = f.Merge(inner.Agg(counts...), dataframe.MergeOptions{How: dataframe.Cross})
	} else {
		with = b.merge(f, inner.GroupBy(names...).Agg(counts...), outer, names, dataframe.Left)
	}
	none := dataframe.Coalesce(dataframe.Col(rows), int64(0)).Eq(int64(0))
	may := none.Or(dataframe.Col(values).Eq(dataframe.Col(rows)).And(dataframe.Col(x).NotNull()))
	kept := with.Filter(may).Drop(rows, values)
	return b.merge(kept, inner, lk, rk, dataframe.Anti)
}

// compareScalar is lhs op (scalar subquery): the subquery's value joined
// to each row (by the correlation's columns, the subquery grouped by
// them; by a constant where it is not correlated), compared, dropped.
func (b *binder) compareScalar(n *pg.Node, ae *pg.A_Expr, sub *pg.SelectStmt, rel *relation, sc scope) (*relation, error) {
	sub, corr, err := b.correlate(sub, rel)
	if err != nil {
		return nil, err
	}
	if len(corr.residual) > 0 {
		return nil, b.errorf(corr.residual[0].n, "a scalar subquery tied to the outer rows by an inequality is not supported yet")
	}
	if len(sub.TargetList) != 1 {
		return nil, b.errorf(n, "a scalar subquery must give one column, not %d", len(sub.TargetList))
	}
	k, names := b.keyed(sub, corr, true)
	var inner *relation
	if len(names) > 0 {
		inner, err = b.reduced(k, corr, rel)
	} else {
		inner, err = b.selectStmt(k)
	}
	if err != nil {
		return nil, err
	}
	value := inner.cols[len(names)].field
	renamed := b.hidden("scalar")
	right := inner.frame.Rename(map[string]string{value: renamed})
	var joined *dataframe.Frame
	if len(names) == 0 { // one value for every row
		joined = rel.frame.Merge(right, dataframe.MergeOptions{How: dataframe.Cross})
	} else {
		joined = b.merge(rel.frame, right, corr.outer, names, dataframe.Inner)
	}
	op := strs(ae.Name)[0]
	fn, ok := binaryOps[op]
	if !ok {
		return nil, b.errorf(n, "operator %s is not supported yet", op)
	}
	lhs, err := b.expr(ae.Lexpr, sc.withFrame(joined))
	if err != nil {
		return nil, err
	}
	keep := joined.Filter(fn(lhs, dataframe.Col(renamed))).Select(rel.frame.Columns()...)
	return rel.with(keep), nil
}

// existsBeyond is [NOT] EXISTS over rows tied by equalities and one
// inequality, inner op outer: such a row exists where the inner column's
// least or greatest value among the rows of the keys satisfies it (for <>,
// where either differs from the outer value), so the subquery becomes
// those extremes grouped by the keys, joined (left, for NOT EXISTS) and
// tested. TPC-H q21's "another supplier of the same order".
func (b *binder) existsBeyond(sub *pg.SelectStmt, corr correlation, rel *relation, negated bool) (*relation, error) {
	r := corr.residual[0]
	k, names := b.keyed(sub, corr, true)
	lo, hi := b.hidden("min"), b.hidden("max")
	extreme := func(fn, name string) *pg.Node {
		call := pg.MakeFuncCallNode([]*pg.Node{pg.MakeStrNode(fn)}, []*pg.Node{ref(r.inner)}, -1)
		return pg.MakeResTargetNodeWithNameAndVal(name, call, -1)
	}
	k.TargetList = append(k.TargetList[:len(names):len(names)], extreme("min", lo), extreme("max", hi))
	var inner *relation
	var err error
	if len(names) > 0 {
		inner, err = b.reduced(k, corr, rel)
	} else {
		inner, err = b.selectStmt(k)
	}
	if err != nil {
		return nil, err
	}
	v := dataframe.Col(r.outer)
	minV, maxV := dataframe.Col(lo), dataframe.Col(hi)
	var holds dataframe.Expr
	switch r.op {
	case "<>":
		holds = minV.Ne(v).Or(maxV.Ne(v))
	case "<":
		holds = minV.Lt(v)
	case "<=":
		holds = minV.Le(v)
	case ">":
		holds = maxV.Gt(v)
	case ">=":
		holds = maxV.Ge(v)
	}
	how := dataframe.Inner
	if negated {
		how, holds = dataframe.Left, dataframe.Coalesce(holds, false).Not()
	}
	if len(names) == 0 {
		how = dataframe.Cross // the extremes of the whole subquery: one row
	}
	joined := b.merge(rel.frame, inner.frame, corr.outer, names, how)
	return rel.with(joined.Filter(holds).Select(rel.frame.Columns()...)), nil
}
