package sql

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/duskdata/dusk/dataframe"
)

// Context holds the tables queries name: frames registered by name, as
// Polars' SQLContext and DuckDB's registered relations. Names are matched
// without regard to case, as SQL's unquoted identifiers. It is safe for
// concurrent use.
type Context struct {
	mu     sync.RWMutex
	tables map[string]*dataframe.Frame
	views  map[string]*cte // CREATE VIEW's, bound again where read
}

// NewContext returns a context with the tables given (nil: none).
func NewContext(tables map[string]*dataframe.Frame) *Context {
	c := &Context{tables: make(map[string]*dataframe.Frame)}
	for name, f := range tables {
		c.Register(name, f)
	}
	return c
}

// Register names a frame for queries; a frame already of that name is
// replaced.
func (c *Context) Register(name string, f *dataframe.Frame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tables[strings.ToLower(name)] = f
	delete(c.views, strings.ToLower(name))
}

func (c *Context) view(name string) (*cte, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.views[strings.ToLower(name)]
	return v, ok
}

// Tables lists the registered names and views, sorted.
func (c *Context) Tables() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	names := make([]string, 0, len(c.tables)+len(c.views))
	for n := range c.tables {
		names = append(names, n)
	}
	for n := range c.views {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (c *Context) table(name string) (*dataframe.Frame, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	f, ok := c.tables[strings.ToLower(name)]
	return f, ok
}

// Query parses query (one SELECT statement) and binds it onto the
// registered frames, with $1, $2... taking args' values. The result is
// lazy, as any frame: nothing runs until it is computed. An error (of
// syntax, an unknown table or column, a type mismatch, something not yet
// supported) is kept in the frame, naming where in the query it is.
func (c *Context) Query(query string, args ...any) *dataframe.Frame {
	f, err := c.bind(query, args)
	if err != nil {
		return dataframe.Failed(err)
	}
	return f
}

func (c *Context) bind(query string, args []any) (*dataframe.Frame, error) {
	tree, err := parse(query)
	if err != nil {
		return nil, syntaxError(query, err)
	}
	if len(tree.Stmts) != 1 {
		return nil, fmt.Errorf("sql: %d statements given; one query at a time", len(tree.Stmts))
	}
	b := &binder{ctx: c, query: query, args: args}
	stmt := tree.Stmts[0].Stmt
	if ex := stmt.GetExplainStmt(); ex != nil {
		if len(ex.Options) > 0 {
			return nil, b.errorf(ex.Options[0], "EXPLAIN takes no options yet")
		}
		sel := ex.Query.GetSelectStmt()
		if sel == nil {
			return nil, b.errorf(ex.Query, "only SELECT queries can be explained yet")
		}
		out, err := b.selectStmt(sel)
		if err != nil {
			return nil, err
		}
		return explained(out.frame), nil
	}
	sel := stmt.GetSelectStmt()
	if sel == nil {
		return nil, b.errorf(stmt, "only SELECT queries are supported yet")
	}
	out, err := b.selectStmt(sel)
	if err != nil {
		return nil, err
	}
	return out.frame, nil
}

// explained is a frame of one column, explain, holding f's plan (as
// Explain writes it) a line a row.
func explained(f *dataframe.Frame) *dataframe.Frame {
	type line struct {
		Explain string `dusk:"explain"`
	}
	var rows []line
	for _, l := range strings.Split(strings.TrimRight(f.Explain(), "\n"), "\n") {
		rows = append(rows, line{l})
	}
	return dataframe.FromRecords(rows, 1)
}
