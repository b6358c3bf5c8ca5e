package sql

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/duskdata/dusk/dataframe"
)

// from binds the FROM list; tables listed apart are joined by the
// equalities between them among WHERE's conjuncts, which are taken out;
// the rest are returned.
func (b *binder) from(items []*pg.Node, conjuncts []*pg.Node) (*relation, []*pg.Node, error) {
	if len(items) == 0 {
		return nil, nil, fmt.Errorf("sql: a query without FROM is not supported yet")
	}
	var rels []*relation
	for _, it := range items {
		r, err := b.fromItem(it)
		if err != nil {
			return nil, nil, err
		}
		rels = append(rels, r)
	}
	listed := slices.Clone(rels)
	if len(rels) > 1 {
		conjuncts = b.pushIn(rels, conjuncts)
	}
	if len(rels) > 1 {
		conjuncts = append(conjuncts, b.implied(rels, conjuncts)...)
	}
	for _, r := range rels {
		b.originOf(r, conjuncts)
	}
	// Join order, without sizes: from the first table WHERE filters (or
	// an IN subquery was pushed into), each next table one joined to those
	// before, a filtered one first, so that filters shrink the rows early;
	// else in the order listed. (Starting from the smallest filtered table
	// instead took TPC-H q5 from its region through the suppliers to the
	// customers of their nations, a join of many to many: 0.2 s to 3.)
	filtered := make([]bool, len(rels))
	for i, r := range rels {
		filtered[i] = r != listed[i]
		for _, c := range conjuncts {
			if !hasSubLink(c) && readsOnly(c, r) {
				filtered[i] = true
				break
			}
		}
	}
	var err error
	if rels, filtered, conjuncts, err = b.joinDimensions(rels, filtered, conjuncts); err != nil {
		return nil, nil, err
	}
	first := max(0, slices.Index(filtered, true))
	acc := rels[first]
	rest := slices.Delete(slices.Clone(rels), first, first+1)
	restFiltered := slices.Delete(slices.Clone(filtered), first, first+1)
	for len(rest) > 0 {
		pick, pickFiltered := -1, false
		var pickL, pickR []string
		var pickLeft []*pg.Node
		for i, r := range rest {
			var lk, rk []string
			var left []*pg.Node
			for _, c := range conjuncts {
				if l, rr, ok := b.equiKeys(c, acc, r); ok {
					lk, rk = append(lk, l), append(rk, rr)
				} else {
					left = append(left, c)
				}
			}
			if len(lk) == 0 || pick >= 0 && (pickFiltered || !restFiltered[i]) {
				continue
			}
			pick, pickFiltered, pickL, pickR, pickLeft = i, restFiltered[i], lk, rk, left
		}
		how := dataframe.Inner
		if pick < 0 { // no equality ties any: a cross join with the next, filtered first
			pick, how, pickLeft = max(0, slices.Index(restFiltered, true)), dataframe.Cross, conjuncts
		}
		if acc, err = b.join(acc, rest[pick], pickL, pickR, how, nil, nil); err != nil {
			return nil, nil, err
		}
		conjuncts = pickLeft
		rest = slices.Delete(rest, pick, pick+1)
		restFiltered = slices.Delete(restFiltered, pick, pick+1)
	}
	return acc, conjuncts, nil
}

// joinDimensions joins each filtered table of one partition that is tied
// by equalities to just one other table, itself of one partition, to that
// table first, and returns the tables, which are filtered, and the
// conjuncts left: a small filtered side for the large tables to meet
// (TPC-H q21's suppliers of Saudi Arabia, before the lines: at SF10 the
// lines met every order first, 10 s where 2.7 do). A table tied to more
// than one is left to the join order, as q5's region is joined to its
// nations but not through them to both suppliers and customers, which
// would pair every supplier of a nation with each of its customers.
func (b *binder) joinDimensions(rels []*relation, filtered []bool, conjuncts []*pg.Node) ([]*relation, []bool, []*pg.Node, error) {
	ties := func(l, r *relation) (lk, rk []string, rest []*pg.Node) {
		for _, c := range conjuncts {
			if x, y, ok := b.equiKeys(c, l, r); ok {
				lk, rk = append(lk, x), append(rk, y)
			} else {
				rest = append(rest, c)
			}
		}
		return lk, rk, rest
	}
	var made []*relation
	for joined := true; joined; {
		joined = false
		for i, r := range rels {
			if !filtered[i] || r.frame.NumPartitions() != 1 {
				continue
			}
			other := -1
			for j, o := range rels {
				if lk, _, _ := ties(o, r); j != i && len(lk) > 0 {
					if other >= 0 {
						other = -2 // tied to more than one
						break
					}
					other = j
				}
			}
			if other < 0 || rels[other].frame.NumPartitions() != 1 {
				continue
			}
			lk, rk, rest := ties(rels[other], r)
			dim, err := b.join(rels[other], r, lk, rk, dataframe.Inner, nil, nil)
			if err != nil {
				return nil, nil, nil, err
			}
			rels[other], filtered[other], conjuncts = dim, true, rest
			rels, filtered = slices.Delete(rels, i, i+1), slices.Delete(filtered, i, i+1)
			made = append(made, dim)
			joined = true
			break
		}
	}
	// A dimension so made leads the join order (filtered) only where it
	// hangs off one table: q5's suppliers of Asia, tied to the lines and to
	// the customers (by nation), wait for the lines.
	for i, r := range rels {
		if !slices.Contains(made, r) {
			continue
		}
		tied := 0
		for j, o := range rels {
			if lk, _, _ := ties(o, r); j != i && len(lk) > 0 {
				tied++
			}
		}
		filtered[i] = tied == 1
	}
	return rels, filtered, conjuncts, nil
}

// originOf records a FROM item of one table as its own origin, with the
// conditions of conjuncts that read it alone applied.
func (b *binder) originOf(r *relation, conjuncts []*pg.Node) {
	if len(r.cols) == 0 || slices.ContainsFunc(r.cols, func(c column) bool { return c.table != r.cols[0].table }) {
		return
	}
	o := &relation{frame: r.frame, cols: r.cols}
	for _, c := range conjuncts {
		if hasSubLink(c) || !readsOnly(c, r) {
			continue
		}
		pred, err := b.expr(c, &rowScope{b: b, rel: o})
		if err != nil {
			return
		}
		o.frame = o.frame.Filter(pred)
	}
	r.origins = map[string]*relation{r.cols[0].table: o}
}

// pushIn applies each x [NOT] IN (subquery) of WHERE whose x reads one
// table of FROM and whose subquery stands alone to that table before the
// joins (TPC-H q18's orders with a large quantity: 57 orders, not the
// 6 million lines the joins make of them), and returns the conjuncts left.
func (b *binder) pushIn(rels []*relation, conjuncts []*pg.Node) []*pg.Node {
	var left []*pg.Node
	for _, c := range conjuncts {
		inner := c
		if be := c.GetBoolExpr(); be != nil && be.Boolop == pg.BoolExprType_NOT_EXPR {
			inner = be.Args[0]
		}
		sl := inner.GetSubLink()
		if sl == nil || sl.SubLinkType != pg.SubLinkType_ANY_SUBLINK || sl.Testexpr == nil {
			left = append(left, c)
			continue
		}
		pushed := false
		for i, r := range rels {
			if !readsOnly(sl.Testexpr, r) {
				continue
			}
			if out, err := b.subqueryFilter(c, r, &rowScope{b: b, rel: r}); err == nil {
				rels[i], pushed = out, true
			}
			break
		}
		if !pushed {
			left = append(left, c)
		}
	}
	return left
}

// readsOnly reports whether every column n reads resolves in r.
func readsOnly(n *pg.Node, r *relation) bool {
	ok := true
	var walk func(*pg.Node)
	walk = func(n *pg.Node) {
		if n == nil || n.Node == nil || !ok {
			return
		}
		if ref := n.GetColumnRef(); ref != nil {
			if _, err := r.resolve(strs(ref.Fields)); err != nil {
				ok = false
			}
			return
		}
		if n.GetSubLink() != nil {
			ok = false
			return
		}
		for _, c := range children(n) {
			walk(c)
		}
	}
	walk(n)
	return ok
}

// equiKeys reports whether c is a = b between a column of left and one of
// right, and their fields.
func (b *binder) equiKeys(c *pg.Node, left, right *relation) (string, string, bool) {
	ae := c.GetAExpr()
	if ae == nil || ae.Kind != pg.A_Expr_Kind_AEXPR_OP || len(ae.Name) != 1 || strs(ae.Name)[0] != "=" {
		return "", "", false
	}
	lref, rref := ae.Lexpr.GetColumnRef(), ae.Rexpr.GetColumnRef()
	if lref == nil || rref == nil {
		return "", "", false
	}
	lc1, err1 := left.resolve(strs(lref.Fields))
	rc1, err2 := right.resolve(strs(rref.Fields))
	if err1 == nil && err2 == nil {
		return lc1.field, rc1.field, true
	}
	lc2, err1 := left.resolve(strs(rref.Fields))
	rc2, err2 := right.resolve(strs(lref.Fields))
	if err1 == nil && err2 == nil {
		return lc2.field, rc2.field, true
	}
	return "", "", false
}

// join merges two relations on key fields; the right side's columns whose
// fields the left has too are renamed table.name first.
func (b *binder) join(left, right *relation, lk, rk []string, how dataframe.How, lCan, rCan *dataframe.Expr) (*relation, error) {
	have := map[string]bool{}
	for _, c := range left.cols {
		have[c.field] = true
	}
	renames := map[string]string{}
	out := &relation{cols: append([]column(nil), left.cols...), origins: map[string]*relation{}}
	maps.Copy(out.origins, left.origins)
	maps.Copy(out.origins, right.origins)
	for _, c := range right.cols {
		if have[c.field] {
			renames[c.field] = c.table + "." + c.name
			c.field = renames[c.field]
		}
		out.cols = append(out.cols, c)
	}
	rf := right.frame
	var canField string
	if rCan != nil && len(renames) > 0 {
		// The condition reads the right's fields as they were named.
		canField = b.hidden("can")
		rf = rf.WithColumn(canField, *rCan)
		can := dataframe.Col(canField)
		rCan = &can
	}
	if len(renames) > 0 {
		rf = rf.Rename(renames)
		for i, k := range rk {
			if r, ok := renames[k]; ok {
				rk[i] = r
			}
		}
	}
	out.frame = b.mergeWhere(left.frame, rf, lk, rk, how, lCan, rCan)
	if canField != "" {
		out.frame = out.frame.Drop(canField)
	}
	return out, nil
}

// merge joins left and right where lk = rk as SQL does, where a null key
// equals nothing (Merge matches null keys, as pandas' merge).
func (b *binder) merge(left, right *dataframe.Frame, lk, rk []string, how dataframe.How) *dataframe.Frame {
	return b.mergeWhere(left, right, lk, rk, how, nil, nil)
}

// mergeWhere is merge where a left row matches only if it meets lCan, and
// a right one rCan (nil: any row), besides its keys being present. A side
// whose unmatched rows the join drops loses the rows that cannot match
// first; where a side keeps such rows, a hidden key, 1 on the left and 2
// on the right for rows that cannot match, 0 for those that can, keeps
// them from meeting any.
func (b *binder) mergeWhere(left, right *dataframe.Frame, lk, rk []string, how dataframe.How, lCan, rCan *dataframe.Expr) *dataframe.Frame {
	if how == dataframe.Cross {
		return left.Merge(right, dataframe.MergeOptions{How: how})
	}
	can := func(keys []string, also *dataframe.Expr) dataframe.Expr {
		e := dataframe.Col(keys[0]).NotNull()
		for _, k := range keys[1:] {
			e = e.And(dataframe.Col(k).NotNull())
		}
		if also != nil {
			e = e.And(*also)
		}
		return e
	}
	lc, rc := can(lk, lCan), can(rk, rCan)
	keepL := how == dataframe.Left || how == dataframe.Anti || how == dataframe.Outer
	keepR := how == dataframe.Right || how == dataframe.Outer
	if !keepL {
		left = left.Filter(lc)
	}
	if !keepR {
		right = right.Filter(rc)
	}
	// A kept side's null key meets nothing once the other side has none;
	// other rows that cannot match, or both sides kept, need the marker.
	if !(keepL && lCan != nil || keepR && rCan != nil || keepL && keepR) {
		return left.Merge(right, dataframe.MergeOptions{How: how, LeftOn: lk, RightOn: rk})
	}
	ml, mr := b.hidden("nomatch"), b.hidden("nomatch")
	left = left.WithColumn(ml, dataframe.When(lc).Then(int64(0)).Otherwise(int64(1)))
	right = right.WithColumn(mr, dataframe.When(rc).Then(int64(0)).Otherwise(int64(2)))
	j := left.Merge(right, dataframe.MergeOptions{How: how, LeftOn: append(slices.Clone(lk), ml), RightOn: append(slices.Clone(rk), mr)})
	if how == dataframe.Anti {
		return j.Drop(ml)
	}
	return j.Drop(ml, mr)
}

// fromItem binds a table, a subquery in FROM or a JOIN.
func (b *binder) fromItem(n *pg.Node) (*relation, error) {
	switch v := n.Node.(type) {
	case *pg.Node_RangeVar:
		rv := v.RangeVar
		name := rv.Relname
		if rv.Alias != nil {
			name = rv.Alias.Aliasname
		}
		if cte, ok := b.ctes[strings.ToLower(rv.Relname)]; ok {
			return b.cteRelation(cte, name)
		}
		if view, ok := b.ctx.view(rv.Relname); ok {
			key := strings.ToLower(rv.Relname)
			if b.inView[key] {
				return nil, b.errorf(rv, "view %q reads itself", rv.Relname)
			}
			if b.inView == nil {
				b.inView = map[string]bool{}
			}
			b.inView[key] = true
			defer delete(b.inView, key)
			return b.cteRelation(view, name)
		}
		f, ok := b.ctx.table(rv.Relname)
		if !ok {
			return nil, b.errorf(rv, "no table %q%s", rv.Relname, closeNames(rv.Relname, b.ctx.Tables()))
		}
		return tableRelation(name, f), nil
	case *pg.Node_RangeSubselect:
		rs := v.RangeSubselect
		sub, err := b.selectStmt(rs.Subquery.GetSelectStmt())
		if err != nil {
			return nil, err
		}
		name := ""
		var colnames []string
		if rs.Alias != nil {
			name, colnames = rs.Alias.Aliasname, strs(rs.Alias.Colnames)
		}
		return b.named(n, sub, name, colnames)
	case *pg.Node_JoinExpr:
		return b.joinExpr(v.JoinExpr)
	case *pg.Node_RangeFunction:
		return b.tableFunction(n, v.RangeFunction)
	}
	return nil, b.errorf(n, "this kind of FROM item is not supported yet")
}

// joinExpr binds left JOIN right ON ... or USING (...).
func (b *binder) joinExpr(j *pg.JoinExpr) (*relation, error) {
	how, ok := map[pg.JoinType]dataframe.How{
		pg.JoinType_JOIN_INNER: dataframe.Inner, pg.JoinType_JOIN_LEFT: dataframe.Left,
		pg.JoinType_JOIN_RIGHT: dataframe.Right, pg.JoinType_JOIN_FULL: dataframe.Outer,
	}[j.Jointype]
	if !ok || j.IsNatural {
		return nil, b.errorf(j.Larg, "this kind of join is not supported yet")
	}
	left, err := b.fromItem(j.Larg)
	if err != nil {
		return nil, err
	}
	right, err := b.fromItem(j.Rarg)
	if err != nil {
		return nil, err
	}
	var lk, rk []string
	var rest []*pg.Node
	if len(j.UsingClause) > 0 {
		for _, name := range strs(j.UsingClause) {
			l, err1 := left.resolve([]string{name})
			r, err2 := right.resolve([]string{name})
			if err1 != nil || err2 != nil {
				return nil, b.errorf(j.Rarg, "USING (%s): both sides need the column", name)
			}
			lk, rk = append(lk, l.field), append(rk, r.field)
		}
	} else if j.Quals != nil {
		for _, c := range splitAnd(j.Quals) {
			if l, r, ok := b.equiKeys(c, left, right); ok {
				lk, rk = append(lk, l), append(rk, r)
			} else {
				rest = append(rest, c)
			}
		}
	}
	if how == dataframe.Inner {
		// Any condition: those not equalities filter the pairs (CROSS
		// JOIN, or an ON of no equality, pairs every row).
		if len(lk) == 0 {
			how = dataframe.Cross
		}
		out, err := b.join(left, right, lk, rk, how, nil, nil)
		if err != nil {
			return nil, err
		}
		rs := &rowScope{b: b, rel: out}
		for _, c := range rest {
			pred, err := b.expr(c, rs)
			if err != nil {
				return nil, err
			}
			out = out.with(out.frame.Filter(pred))
			rs.rel = out
		}
		return out, nil
	}
	if len(lk) == 0 {
		return nil, b.errorf(j.Quals, "an outer join needs an equality between its sides")
	}
	// The other conditions of an outer join's ON read one side each: rows
	// of that side that fail them match nothing (mergeWhere).
	var lCan, rCan *dataframe.Expr
	for _, c := range rest {
		var side **dataframe.Expr
		var rs *rowScope
		switch {
		case readsOnly(c, left):
			side, rs = &lCan, &rowScope{b: b, rel: left}
		case readsOnly(c, right):
			side, rs = &rCan, &rowScope{b: b, rel: right}
		default:
			return nil, b.errorf(c, "an outer join's condition must be equalities or read one side alone yet")
		}
		pred, err := b.expr(c, rs)
		if err != nil {
			return nil, err
		}
		if *side != nil {
			pred = (*side).And(pred)
		}
		*side = &pred
	}
	return b.join(left, right, lk, rk, how, lCan, rCan)
}

// named is a subquery's result as a table of FROM: its columns take the
// table's name, and the names given (a prefix of them may be renamed).
func (b *binder) named(n any, sub *relation, table string, colnames []string) (*relation, error) {
	if len(colnames) > len(sub.cols) {
		return nil, b.errorf(n, "%d column names for a subquery of %d columns", len(colnames), len(sub.cols))
	}
	renames := map[string]string{}
	for i, c := range colnames {
		if sub.cols[i].field != c {
			renames[sub.cols[i].field] = c
		}
		sub.cols[i].name, sub.cols[i].field = c, c
	}
	if len(renames) > 0 {
		sub.frame = sub.frame.Rename(renames)
	}
	for i := range sub.cols {
		sub.cols[i].table = table
	}
	sub.origins = nil // the subquery's tables, not FROM's
	return sub, nil
}

// cte is a common table expression of WITH.
type cte struct {
	def      *pg.CommonTableExpr
	colnames []string
}

// with makes WITH's tables visible to the query, and returns a function
// that hides them again (a nested WITH shadows an outer one of its name).
func (b *binder) with(w *pg.WithClause) (restore func(), err error) {
	if w.Recursive {
		return nil, errorAt(b.query, int(w.Location), "WITH RECURSIVE is not supported yet")
	}
	saved := b.ctes
	b.ctes = make(map[string]*cte, len(saved)+len(w.Ctes))
	for k, v := range saved {
		b.ctes[k] = v
	}
	for _, n := range w.Ctes {
		c := n.GetCommonTableExpr()
		if c.Ctequery.GetSelectStmt() == nil {
			b.ctes = saved
			return nil, b.errorf(c, "WITH %s: only a SELECT may define it", c.Ctename)
		}
		b.ctes[strings.ToLower(c.Ctename)] = &cte{def: c, colnames: strs(c.Aliascolnames)}
	}
	return func() { b.ctes = saved }, nil
}

// cteRelation binds a WITH table where FROM names it: each use binds its
// query again, to the same plan (equal steps have equal keys, so the
// cluster computes it once per query).
func (b *binder) cteRelation(c *cte, name string) (*relation, error) {
	sub, err := b.selectStmt(c.def.Ctequery.GetSelectStmt())
	if err != nil {
		return nil, err
	}
	return b.named(c.def, sub, name, c.colnames)
}

// tableFunctions read files as tables in FROM, as DuckDB's: the pattern
// takes the readers' globs, object stores and hive directories.
var tableFunctions = map[string]func(pattern string) *dataframe.Frame{
	"read_parquet":  func(p string) *dataframe.Frame { return dataframe.ReadParquet(p) },
	"read_csv":      func(p string) *dataframe.Frame { return dataframe.ReadCSV(p) },
	"read_csv_auto": func(p string) *dataframe.Frame { return dataframe.ReadCSV(p) },
	"read_json":     func(p string) *dataframe.Frame { return dataframe.ReadJSON(p) },
	"read_avro":     func(p string) *dataframe.Frame { return dataframe.ReadAvro(p) },
}

// tableFunction binds read_parquet('path') and its kin in FROM.
func (b *binder) tableFunction(n *pg.Node, rf *pg.RangeFunction) (*relation, error) {
	if len(rf.Functions) != 1 || rf.Lateral || rf.Ordinality {
		return nil, b.errorf(n, "this kind of table function is not supported yet")
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 || items[0].GetFuncCall() == nil {
		return nil, b.errorf(n, "this kind of table function is not supported yet")
	}
	fc := items[0].GetFuncCall()
	name := funcName(fc)
	read, ok := tableFunctions[name]
	if !ok {
		var names []string
		for k := range tableFunctions {
			names = append(names, k)
		}
		return nil, b.errorf(items[0], "no table function %s%s", name, closeNames(name, names))
	}
	if len(fc.Args) != 1 {
		return nil, b.errorf(items[0], "%s takes one argument, the files' path or pattern", name)
	}
	pattern, ok := b.stringConst(fc.Args[0])
	if !ok {
		return nil, b.errorf(fc.Args[0], "%s takes a string", name)
	}
	f := read(pattern)
	if err := f.Err(); err != nil {
		return nil, b.errorf(items[0], "%v", err)
	}
	table := name
	var colnames []string
	if rf.Alias != nil {
		table, colnames = rf.Alias.Aliasname, strs(rf.Alias.Colnames)
	}
	return b.named(n, tableRelation(table, f), table, colnames)
}
