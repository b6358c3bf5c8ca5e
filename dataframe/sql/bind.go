package sql

import (
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/duskdata/dusk/dataframe"
)

// binder binds one query's syntax tree onto frames.
type binder struct {
	ctx   *Context
	query string
	args  []any
	n     int // hidden columns made so far, for their names
	ctes  map[string]*cte
	// restrict is a semi join for the next SELECT bound (reduced).
	restrict *restriction
	inView   map[string]bool // the views being bound, to refuse one that reads itself
}

// hidden is a name for a column the binder adds and drops again.
func (b *binder) hidden(what string) string {
	b.n++
	return fmt.Sprintf("__sql_%s%d", what, b.n)
}

// column is one column a relation shows to SQL: the table (or alias) it
// came from, its SQL name, and its name in the frame (which differs where
// two joined tables have a column of the same name).
type column struct {
	table, name, field string
}

// relation is a bound FROM item, or a query's result.
type relation struct {
	frame *dataframe.Frame
	cols  []column
	// origins are the tables of FROM by name, each its rows with WHERE's
	// conditions on it alone: where a correlated subquery's keys come from
	// one, its semi-join reduction can read that (reduced).
	origins map[string]*relation
	// reduceBy holds the outer rows whose keys reduce every correlated
	// subquery of one WHERE: those the first such subquery met, a superset
	// of the later ones' (which the earlier filtered), so that the
	// reductions are one plan step, not a chain (TPC-H q21's EXISTS and
	// NOT EXISTS).
	reduceBy *reduceKeys
}

// reduceKeys are the rows a WHERE's correlated subqueries are reduced by,
// once the first is bound.
type reduceKeys struct{ rows *dataframe.Frame }

// with is r's columns over other rows of them.
func (r *relation) with(f *dataframe.Frame) *relation {
	return &relation{frame: f, cols: r.cols, origins: r.origins, reduceBy: r.reduceBy}
}

// origin is the table of FROM that the fields all come from, with their
// fields in it, where r joins it with others (else it is r) and it is
// small enough to be read again cheaply: at most originRows rows, its
// fields what Merge would broadcast (TPC-H q17's parts at SF10, not q21's
// lines, whose late ones hold most orders).
func (r *relation) origin(fields []string) (*relation, []string, bool) {
	if len(r.origins) < 2 {
		return nil, nil, false
	}
	var o *relation
	var out []string
	for _, f := range fields {
		i := slices.IndexFunc(r.cols, func(c column) bool { return c.field == f })
		if i < 0 {
			return nil, nil, false
		}
		c := r.cols[i]
		t := r.origins[c.table]
		if t == nil || o != nil && t != o {
			return nil, nil, false
		}
		o = t
		j := slices.IndexFunc(t.cols, func(oc column) bool { return oc.name == c.name })
		if j < 0 {
			return nil, nil, false
		}
		out = append(out, t.cols[j].field)
	}
	if o == nil {
		return nil, nil, false
	}
	if b, rows := o.frame.Select(out...).Estimated(); b < 0 || b > dataframe.DefaultBroadcastBytes || rows < 0 || rows > originRows {
		return nil, nil, false
	}
	return o, out, true
}

// originRows is the most rows of a table origin reads again.
const originRows = 4 << 20

// tableRelation is a frame's columns as table's.
func tableRelation(table string, f *dataframe.Frame) *relation {
	r := &relation{frame: f}
	for _, c := range f.Columns() {
		r.cols = append(r.cols, column{table: table, name: strings.ToLower(c), field: c})
	}
	return r
}

// resolve finds the column a reference names: [name] or [table, name].
func (r *relation) resolve(parts []string) (column, error) {
	var table, name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		table, name = parts[0], parts[1]
	default:
		return column{}, fmt.Errorf("column reference %s has too many parts", strings.Join(parts, "."))
	}
	var found []column
	for _, c := range r.cols {
		if c.name == name && (table == "" || c.table == table) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		if table != "" && !r.hasTable(table) {
			return column{}, fmt.Errorf("no table %q in FROM", table)
		}
		return column{}, &unknownColumn{ref: strings.Join(parts, "."), name: name, rel: r}
	}
	return column{}, fmt.Errorf("column %q is ambiguous: tables %s have it; qualify it", name, tablesOf(found))
}

// unknownColumn is the error of a name no column has; the close names it
// lists are looked for only when it is printed, as binding probes names
// (which side of a join a column is on) far more often than it reports.
type unknownColumn struct {
	ref, name string
	rel       *relation
}

func (e *unknownColumn) Error() string {
	return fmt.Sprintf("no column %q%s", e.ref, closeNames(e.name, e.rel.names()))
}

func (r *relation) hasTable(t string) bool {
	for _, c := range r.cols {
		if c.table == t {
			return true
		}
	}
	return false
}

func (r *relation) names() []string {
	out := make([]string, len(r.cols))
	for i, c := range r.cols {
		out[i] = c.name
	}
	return out
}

func tablesOf(cs []column) string {
	var ts []string
	for _, c := range cs {
		ts = append(ts, c.table)
	}
	return strings.Join(ts, " and ")
}

// closeNames lists the names like name, for an error: ": did you mean ...?".
func closeNames(name string, names []string) string {
	var close []string
	for _, n := range names {
		if editDistance(name, n) <= max(1, len(name)/3) || strings.Contains(n, name) || strings.Contains(name, n) {
			close = append(close, n)
		}
	}
	if len(close) == 0 {
		return ""
	}
	if len(close) > 5 {
		close = close[:5]
	}
	return "; did you mean " + strings.Join(close, ", ") + "?"
}

// editDistance is Levenshtein's distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// names of a list of String nodes, lower-cased as SQL folds unquoted names
// (the parser already folded them; quoted ones keep their case).
func strs(nodes []*pg.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}
