package sql

import (
	"fmt"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/duskdata/dusk/dataframe"
)

// selectStmt binds a SELECT: FROM and its joins, WHERE, the grouping and
// its aggregates, HAVING, the select list, DISTINCT, ORDER BY, LIMIT.
func (b *binder) selectStmt(s *pg.SelectStmt) (*relation, error) {
	restrict := b.restrict // for this SELECT, not those within it
	b.restrict = nil
	switch {
	case s.Op != pg.SetOperation_SETOP_NONE:
		return b.setOperation(s)
	case len(s.ValuesLists) > 0:
		return nil, b.errorf(s.ValuesLists[0], "VALUES is not supported yet")
	case len(s.WindowClause) > 0:
		return nil, b.errorf(s.WindowClause[0], "window functions are not supported yet")
	}
	if s.WithClause != nil {
		restore, err := b.with(s.WithClause)
		if err != nil {
			return nil, err
		}
		defer restore()
	}
	var conjuncts []*pg.Node
	if s.WhereClause != nil {
		conjuncts = splitAnd(s.WhereClause)
	}
	from, conjuncts, err := b.from(s.FromClause, conjuncts)
	if err != nil {
		return nil, err
	}
	rows := &rowScope{b: b, rel: from}
	var subs []*pg.Node
	for _, c := range conjuncts {
		if hasSubLink(c) {
			subs = append(subs, c) // after the plain filters, which shrink what they join
			continue
		}
		pred, err := b.expr(c, rows)
		if err != nil {
			return nil, err
		}
		from = from.with(from.frame.Filter(pred))
		rows.rel = from
	}
	if restrict != nil {
		if from, err = restrict.apply(b, from); err != nil {
			return nil, err
		}
		rows.rel = from
	}
	if len(subs) > 0 {
		from = from.with(from.frame)
		from.reduceBy = &reduceKeys{}
	}
	for _, c := range subs {
		if from, err = b.subqueryFilter(c, from, rows); err != nil {
			return nil, err
		}
		rows.rel = from
	}

	var sc scope = rows
	if len(s.GroupClause) > 0 || s.HavingClause != nil || hasAggregate(s) {
		g, err := b.group(s, from)
		if err != nil {
			return nil, err
		}
		sc = g
	}
	return b.project(s, sc)
}

// project computes the select list in sc (a row or a group scope), then
// HAVING's filter, DISTINCT, ORDER BY and LIMIT, and keeps the list's
// columns alone, named as SQL names them.
func (b *binder) project(s *pg.SelectStmt, sc scope) (*relation, error) {
	f := sc.frame()
	var out []column
	taken := map[string]bool{}
	addOut := func(name, field string) {
		// A frame's columns have names of their own: a second "count"
		// is "count_1", as DuckDB names a subquery's columns.
		for i, base := 1, name; taken[name]; i++ {
			name = fmt.Sprintf("%s_%d", base, i)
		}
		taken[name] = true
		out = append(out, column{name: name, field: field})
	}
	for _, t := range s.TargetList {
		rt := t.GetResTarget()
		if ref := rt.Val.GetColumnRef(); ref != nil {
			if _, ok := ref.Fields[len(ref.Fields)-1].Node.(*pg.Node_AStar); ok {
				if len(ref.Fields) > 1 || rt.Name != "" {
					return nil, b.errorf(rt, "only a bare * is supported yet")
				}
				for _, c := range sc.all() {
					addOut(c.name, c.field)
				}
				continue
			}
		}
		name := outputName(rt)
		e, err := b.expr(rt.Val, sc)
		if err != nil {
			return nil, err
		}
		var field string
		if col, ok := plainColumn(e); ok && !usedField(out, col) {
			field = col // renamed at the end where aliased
		} else {
			field = b.hidden("out")
			f = f.WithColumn(field, e)
		}
		addOut(name, field)
	}
	if s.HavingClause != nil {
		for _, c := range splitAnd(s.HavingClause) {
			if hasSubLink(c) {
				rel, err := b.subqueryFilter(c, &relation{frame: f}, sc.withFrame(f))
				if err != nil {
					return nil, err
				}
				f = rel.frame
				continue
			}
			pred, err := b.expr(c, sc.withFrame(f))
			if err != nil {
				return nil, err
			}
			f = f.Filter(pred)
		}
	}
	if len(s.DistinctClause) > 0 {
		if s.DistinctClause[0] != nil && s.DistinctClause[0].Node != nil {
			return nil, b.errorf(s.DistinctClause[0], "DISTINCT ON is not supported yet")
		}
		f = f.Select(fieldsOf(out)...).DropDuplicates()
	}
	// LIMIT on the sort itself, which makes the two a top-n.
	f, err := b.orderAndLimit(s, out, sc, f, len(s.DistinctClause) > 0)
	if err != nil {
		return nil, err
	}
	renames := map[string]string{}
	for _, c := range out {
		if c.field != c.name {
			renames[c.field] = c.name
		}
	}
	f = f.Select(fieldsOf(out)...)
	if len(renames) > 0 {
		f = f.Rename(renames)
	}
	rel := &relation{frame: f}
	for _, c := range out {
		rel.cols = append(rel.cols, column{name: c.name, field: c.name})
	}
	return rel, nil
}

func usedField(out []column, field string) bool {
	for _, c := range out {
		if c.field == field {
			return true
		}
	}
	return false
}

// orderAndLimit applies s's ORDER BY and LIMIT to f, whose result columns
// are out, bound in sc (distinct: only the result's columns may sort).
func (b *binder) orderAndLimit(s *pg.SelectStmt, out []column, sc scope, f *dataframe.Frame, distinct bool) (*dataframe.Frame, error) {
	if len(s.SortClause) > 0 {
		var by []string
		var asc []bool
		for _, n := range s.SortClause {
			sb := n.GetSortBy()
			field, err := b.sortKey(sb.Node, out, sc.withFrame(f), &f, distinct)
			if err != nil {
				return nil, err
			}
			if sb.SortbyNulls == pg.SortByNulls_SORTBY_NULLS_FIRST {
				// Nulls sort last (DuckDB's default); first, a key that is
				// false for them puts them first.
				present := b.hidden("nulls")
				f = f.WithColumn(present, dataframe.Col(field).NotNull())
				by, asc = append(by, present), append(asc, true)
			}
			by = append(by, field)
			asc = append(asc, sb.SortbyDir != pg.SortByDir_SORTBY_DESC)
		}
		f = f.SortValues(by, asc...)
	}
	count, offset := -1, 0
	var err error
	if c := s.LimitCount; c != nil && !(c.GetAConst() != nil && c.GetAConst().Isnull) { // LIMIT ALL: no limit
		if count, err = b.intConst(c, "LIMIT"); err != nil {
			return nil, err
		}
	}
	if s.LimitOffset != nil {
		if offset, err = b.intConst(s.LimitOffset, "OFFSET"); err != nil {
			return nil, err
		}
	}
	if count >= 0 || offset > 0 {
		f = f.Slice(offset, count)
	}
	return f, nil
}

// sortKey is the column ORDER BY item n sorts by: a result column named by
// it or by its ordinal, or the value of an expression computed as a hidden
// column of *f.
func (b *binder) sortKey(n *pg.Node, out []column, sc scope, f **dataframe.Frame, distinct bool) (string, error) {
	if c := n.GetAConst(); c != nil {
		if iv, ok := c.Val.(*pg.A_Const_Ival); ok {
			i := int(iv.Ival.Ival)
			if i < 1 || i > len(out) {
				return "", b.errorf(n, "ORDER BY %d: the select list has %d columns", i, len(out))
			}
			return out[i-1].field, nil
		}
	}
	if ref := n.GetColumnRef(); ref != nil && len(ref.Fields) == 1 {
		name := strs(ref.Fields)[0]
		for _, c := range out {
			if c.name == name {
				return c.field, nil
			}
		}
	}
	if distinct {
		return "", b.errorf(n, "with SELECT DISTINCT, ORDER BY takes the select list's columns")
	}
	e, err := b.expr(n, sc)
	if err != nil {
		return "", err
	}
	if col, ok := plainColumn(e); ok {
		return col, nil
	}
	field := b.hidden("sort")
	*f = (*f).WithColumn(field, e)
	return field, nil
}

// intConst reads a non-negative integer constant (LIMIT's, OFFSET's).
func (b *binder) intConst(n *pg.Node, what string) (int, error) {
	if c := n.GetAConst(); c != nil {
		if iv, ok := c.Val.(*pg.A_Const_Ival); ok && iv.Ival.Ival >= 0 {
			return int(iv.Ival.Ival), nil
		}
	}
	if p := n.GetParamRef(); p != nil {
		if v, err := b.param(p); err == nil {
			switch v := v.(type) {
			case int:
				return v, nil
			case int64:
				return int(v), nil
			}
		}
	}
	return 0, b.errorf(n, "%s takes a non-negative integer", what)
}

// outputName is a result column's name: its alias, a column's own name,
// a function's name, else ?column?, as PostgreSQL names them.
func outputName(rt *pg.ResTarget) string {
	if rt.Name != "" {
		return rt.Name
	}
	switch v := rt.Val.Node.(type) {
	case *pg.Node_ColumnRef:
		if s := strs(v.ColumnRef.Fields); len(s) > 0 {
			return s[len(s)-1]
		}
	case *pg.Node_FuncCall:
		if s := strs(v.FuncCall.Funcname); len(s) > 0 {
			return s[len(s)-1]
		}
	case *pg.Node_TypeCast:
		return outputName(&pg.ResTarget{Val: v.TypeCast.Arg})
	}
	return "?column?"
}

// setOperation binds UNION [ALL], INTERSECT and EXCEPT: the right side's
// columns take the left's names, by position; UNION is the two
// concatenated (its duplicates dropped without ALL), INTERSECT and EXCEPT
// the left's distinct rows with (without) an equal row on the right, nulls
// equal as SQL's set operations take them. ORDER BY and LIMIT apply to the
// result, by its column names or ordinals.
func (b *binder) setOperation(s *pg.SelectStmt) (*relation, error) {
	if s.WithClause != nil {
		restore, err := b.with(s.WithClause)
		if err != nil {
			return nil, err
		}
		defer restore()
	}
	left, err := b.selectStmt(s.Larg)
	if err != nil {
		return nil, err
	}
	right, err := b.selectStmt(s.Rarg)
	if err != nil {
		return nil, err
	}
	if len(left.cols) != len(right.cols) {
		return nil, b.errorf(s.Rarg.TargetList[0], "each side of a set operation must have as many columns: %d and %d", len(left.cols), len(right.cols))
	}
	names := make([]string, len(left.cols))
	renames := map[string]string{}
	for i, c := range left.cols {
		names[i] = c.field
		if rf := right.cols[i].field; rf != c.field {
			renames[rf] = c.field
		}
	}
	rf := right.frame.Select(fieldsOf(right.cols)...)
	if len(renames) > 0 {
		rf = rf.Rename(renames)
	}
	lf := left.frame.Select(names...)
	var f *dataframe.Frame
	switch {
	case s.Op == pg.SetOperation_SETOP_UNION:
		f = dataframe.Concat(lf, rf)
		if !s.All {
			f = f.DropDuplicates()
		}
	case s.All:
		return nil, b.errorf(s.Larg.TargetList[0], "INTERSECT ALL and EXCEPT ALL are not supported yet")
	case s.Op == pg.SetOperation_SETOP_INTERSECT:
		f = lf.DropDuplicates().Merge(rf, dataframe.MergeOptions{How: dataframe.Semi, On: names})
	default:
		f = lf.DropDuplicates().Merge(rf, dataframe.MergeOptions{How: dataframe.Anti, On: names})
	}
	out := &relation{frame: f, cols: left.cols}
	if out.frame, err = b.orderAndLimit(s, out.cols, &rowScope{b: b, rel: out}, f, true); err != nil {
		return nil, err
	}
	out.frame = out.frame.Select(names...) // without the sort's hidden columns
	return out, nil
}

func fieldsOf(cols []column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.field
	}
	return out
}
