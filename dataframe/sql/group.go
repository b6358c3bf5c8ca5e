package sql

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/duskdata/dusk/dataframe"
)

// scope is what names mean where an expression is bound: a row of the
// FROM relation (WHERE, a query without grouping), or a group (the select
// list, HAVING and ORDER BY of a grouped query).
type scope interface {
	// column is the value of a column reference.
	column(n *pg.Node, ref *pg.ColumnRef) (dataframe.Expr, error)
	// aggregate is the value of an aggregate call.
	aggregate(n *pg.Node, fc *pg.FuncCall) (dataframe.Expr, error)
	// grouped is the value of an expression a group key is, if it is one.
	grouped(n *pg.Node) (dataframe.Expr, bool)
	frame() *dataframe.Frame
	withFrame(f *dataframe.Frame) scope
	all() []column // the columns * stands for
}

// rowScope binds names to the columns of a relation.
type rowScope struct {
	b   *binder
	rel *relation
}

func (s *rowScope) column(n *pg.Node, ref *pg.ColumnRef) (dataframe.Expr, error) {
	c, err := s.rel.resolve(strs(ref.Fields))
	if err != nil {
		return dataframe.Expr{}, s.b.errorf(n, "%v", err)
	}
	return dataframe.Col(c.field), nil
}

func (s *rowScope) aggregate(n *pg.Node, fc *pg.FuncCall) (dataframe.Expr, error) {
	return dataframe.Expr{}, s.b.errorf(n, "an aggregate (%s) is not allowed here", strings.Join(strs(fc.Funcname), "."))
}

func (s *rowScope) grouped(*pg.Node) (dataframe.Expr, bool) { return dataframe.Expr{}, false }
func (s *rowScope) frame() *dataframe.Frame                 { return s.rel.frame }
func (s *rowScope) all() []column                           { return s.rel.cols }
func (s *rowScope) withFrame(f *dataframe.Frame) scope {
	return &rowScope{b: s.b, rel: &relation{frame: f, cols: s.rel.cols}}
}

// groupScope binds names after a grouping: group keys to their columns,
// aggregate calls to the columns the grouping computed them into.
type groupScope struct {
	b       *binder
	rows    *rowScope                       // the rows grouped, to bind keys' and aggregates' arguments
	out     *dataframe.Frame                // the grouping's result (and columns added to it since)
	keys    map[string]string               // a group key's column field -> its field in out
	exprs   map[string]string               // a computed key's expression, as it prints -> its field
	aliases map[string]string               // a select alias that is a key -> its field
	aggs    map[*pg.FuncCall]dataframe.Expr // an aggregate call -> its value, from the grouping's columns
}

func (s *groupScope) column(n *pg.Node, ref *pg.ColumnRef) (dataframe.Expr, error) {
	parts := strs(ref.Fields)
	c, err := s.rows.rel.resolve(parts)
	if err == nil {
		if f, ok := s.keys[c.field]; ok {
			return dataframe.Col(f), nil
		}
		return dataframe.Expr{}, s.b.errorf(n, "column %q must appear in GROUP BY or be used in an aggregate", strings.Join(parts, "."))
	}
	if len(parts) == 1 {
		if f, ok := s.aliases[parts[0]]; ok {
			return dataframe.Col(f), nil
		}
	}
	return dataframe.Expr{}, s.b.errorf(n, "%v", err)
}

func (s *groupScope) aggregate(n *pg.Node, fc *pg.FuncCall) (dataframe.Expr, error) {
	if e, ok := s.aggs[fc]; ok {
		return e, nil
	}
	return dataframe.Expr{}, s.b.errorf(n, "an aggregate inside an aggregate is not allowed")
}

func (s *groupScope) grouped(n *pg.Node) (dataframe.Expr, bool) {
	if len(s.exprs) == 0 {
		return dataframe.Expr{}, false
	}
	e, err := s.b.expr(n, s.rows)
	if err != nil {
		return dataframe.Expr{}, false
	}
	f, ok := s.exprs[e.String()]
	return dataframe.Col(f), ok
}

func (s *groupScope) frame() *dataframe.Frame { return s.out }
func (s *groupScope) all() []column {
	var out []column
	for _, c := range s.rows.rel.cols {
		if f, ok := s.keys[c.field]; ok {
			out = append(out, column{table: c.table, name: c.name, field: f})
		}
	}
	return out
}
func (s *groupScope) withFrame(f *dataframe.Frame) scope {
	t := *s
	t.out = f
	return &t
}

// hasAggregate reports whether the select list, HAVING or ORDER BY calls
// an aggregate (outside subqueries).
func hasAggregate(s *pg.SelectStmt) bool {
	found := false
	for _, n := range append(append([]*pg.Node{s.HavingClause}, s.TargetList...), s.SortClause...) {
		walkAggregates(n, func(*pg.Node, *pg.FuncCall) { found = true })
	}
	return found
}

// aggregateSynonyms are SQL's names of the dataframe's aggregations
// where they differ; every other name of the table of aggregations
// (dataframe.Aggregations: sum, mean, min, max, count, std, var, median,
// first, last, nunique...) is SQL's too, so a new aggregation needs no
// entry here.
var aggregateSynonyms = map[string]string{
	"avg": "mean", "stddev": "std", "stddev_samp": "std", "variance": "var", "var_samp": "var",
}

// isAggregate reports whether a function of that name aggregates.
func isAggregate(name string) bool {
	if _, ok := aggregateSynonyms[name]; ok {
		return true
	}
	return name != "size" && slices.Contains(dataframe.Aggregations(), name)
}

// walkAggregates calls visit for each aggregate call in n, not looking
// inside them or into subqueries.
func walkAggregates(n *pg.Node, visit func(*pg.Node, *pg.FuncCall)) {
	if n == nil || n.Node == nil {
		return
	}
	if fc := n.GetFuncCall(); fc != nil {
		if isAggregate(funcName(fc)) && fc.Over == nil {
			visit(n, fc)
			return
		}
	}
	if n.GetSubLink() != nil {
		return
	}
	for _, c := range children(n) {
		walkAggregates(c, visit)
	}
}

// group binds GROUP BY and the aggregates the query calls: the rows of
// from with the computed keys added, grouped and aggregated.
func (b *binder) group(s *pg.SelectStmt, from *relation) (*groupScope, error) {
	rows := &rowScope{b: b, rel: from}
	g := &groupScope{b: b, rows: rows, keys: map[string]string{}, exprs: map[string]string{},
		aliases: map[string]string{}, aggs: map[*pg.FuncCall]dataframe.Expr{}}
	pre := from.frame
	var keys []string
	addKey := func(field string) {
		for _, k := range keys {
			if k == field {
				return
			}
		}
		keys = append(keys, field)
	}
	targetNamed := func(name string) *pg.ResTarget {
		for _, t := range s.TargetList {
			if rt := t.GetResTarget(); rt.Name == name {
				return rt
			}
		}
		return nil
	}
	computed := func(n *pg.Node, alias string) error {
		e, err := b.expr(n, rows)
		if err != nil {
			return err
		}
		if col, ok := plainColumn(e); ok {
			g.keys[col] = col
			addKey(col)
			if alias != "" {
				g.aliases[alias] = col
			}
			return nil
		}
		field := alias
		if field == "" {
			field = b.hidden("key")
		}
		pre = pre.WithColumn(field, e)
		g.exprs[e.String()] = field
		if alias != "" {
			g.aliases[alias] = field
		}
		addKey(field)
		return nil
	}
	for _, n := range s.GroupClause {
		switch {
		case n.GetAConst() != nil:
			i, err := b.intConst(n, "GROUP BY")
			if err != nil || i < 1 || i > len(s.TargetList) {
				return nil, b.errorf(n, "GROUP BY %d: the select list has %d columns", i, len(s.TargetList))
			}
			rt := s.TargetList[i-1].GetResTarget()
			if err := computed(rt.Val, rt.Name); err != nil {
				return nil, err
			}
		case n.GetColumnRef() != nil:
			ref := n.GetColumnRef()
			if c, err := from.resolve(strs(ref.Fields)); err == nil {
				g.keys[c.field] = c.field
				addKey(c.field)
				continue
			}
			if parts := strs(ref.Fields); len(parts) == 1 {
				if rt := targetNamed(parts[0]); rt != nil {
					if err := computed(rt.Val, rt.Name); err != nil {
						return nil, err
					}
					continue
				}
			}
			if _, err := rows.column(n, ref); err != nil {
				return nil, err
			}
		default:
			if err := computed(n, ""); err != nil {
				return nil, err
			}
		}
	}
	var aggs, distinct []dataframe.Agg
	var distinctOf []string // each DISTINCT aggregate's argument, a column of pre
	var firstErr error
	visit := func(n *pg.Node, fc *pg.FuncCall) {
		if firstErr != nil {
			return
		}
		name := b.hidden("agg")
		g.aggs[fc] = dataframe.Col(name)
		if fc.AggDistinct && funcName(fc) != "count" && len(fc.Args) == 1 && fc.AggFilter == nil && len(fc.AggOrder) == 0 {
			// Over the distinct values of its argument in each group:
			// aggregated apart, then joined to the grouping by the keys.
			arg, err := b.expr(fc.Args[0], rows)
			if err != nil {
				firstErr = err
				return
			}
			field := b.hidden("distinct")
			pre = pre.WithColumn(field, arg)
			a, err := b.aggregateNamed(n, funcName(fc), dataframe.Col(field))
			if err != nil {
				firstErr = err
				return
			}
			distinct, distinctOf = append(distinct, a.As(name)), append(distinctOf, field)
			return
		}
		a, err := b.aggregateOf(n, fc, rows)
		if err != nil {
			firstErr = err
			return
		}
		aggs = append(aggs, a.As(name))
	}
	for _, n := range append(append([]*pg.Node{s.HavingClause}, s.TargetList...), s.SortClause...) {
		walkAggregates(n, visit)
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if len(aggs) == 0 {
		aggs = append(aggs, dataframe.Size().As(b.hidden("rows"))) // a row for each group
	}
	// Null keys group, as SQL's.
	grouped := func(f *dataframe.Frame, aggs ...dataframe.Agg) *dataframe.Frame {
		if len(keys) == 0 {
			return f.Agg(aggs...)
		}
		return f.GroupBy(keys...).KeepNullKeys().Agg(aggs...)
	}
	g.out = grouped(pre, aggs...)
	for i, a := range distinct {
		values := grouped(pre.Select(append(slices.Clone(keys), distinctOf[i])...).DropDuplicates(), a)
		if len(keys) == 0 {
			g.out = g.out.Merge(values, dataframe.MergeOptions{How: dataframe.Cross})
		} else { // Merge matches null keys: each null key's group its own
			g.out = g.out.Merge(values, dataframe.MergeOptions{How: dataframe.Left, On: keys})
		}
	}
	return g, nil
}

// aggregateOf is the dataframe aggregation of an aggregate call, its
// argument bound to the rows; null where a group has no value, as SQL's
// sum is (the dataframe's is 0, as pandas').
func (b *binder) aggregateOf(n *pg.Node, fc *pg.FuncCall, rows *rowScope) (dataframe.Agg, error) {
	name := funcName(fc)
	switch {
	case fc.AggFilter != nil:
		return dataframe.Agg{}, b.errorf(n, "FILTER on an aggregate is not supported yet")
	case len(fc.AggOrder) > 0:
		return dataframe.Agg{}, b.errorf(n, "ORDER BY inside an aggregate is not supported yet")
	case fc.AggStar:
		if name != "count" {
			return dataframe.Agg{}, b.errorf(n, "%s(*) is not an aggregate; count(*) is", name)
		}
		return dataframe.Size(), nil
	case len(fc.Args) != 1:
		return dataframe.Agg{}, b.errorf(n, "%s takes one argument, not %d", name, len(fc.Args))
	}
	arg, err := b.expr(fc.Args[0], rows)
	if err != nil {
		return dataframe.Agg{}, err
	}
	if fc.AggDistinct { // count's; the others group() takes apart
		return arg.Nunique(), nil
	}
	return b.aggregateNamed(n, name, arg)
}

// aggregateNamed is the aggregation SQL names name of arg.
func (b *binder) aggregateNamed(n *pg.Node, name string, arg dataframe.Expr) (dataframe.Agg, error) {
	if syn, ok := aggregateSynonyms[name]; ok {
		name = syn
	}
	a, err := arg.Aggregate(name)
	if err != nil {
		return dataframe.Agg{}, b.errorf(n, "%v", err)
	}
	if name == "sum" {
		a = a.OrNull()
	}
	return a, nil
}

// funcName is a function call's name, without a pg_catalog qualifier.
func funcName(fc *pg.FuncCall) string {
	parts := strs(fc.Funcname)
	if len(parts) == 0 {
		return ""
	}
	return strings.ToLower(parts[len(parts)-1])
}

// plainColumn reports whether e is a reference to a column, and which.
func plainColumn(e dataframe.Expr) (string, bool) {
	return e.ColumnName()
}
