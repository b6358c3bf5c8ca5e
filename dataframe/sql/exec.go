package sql

import (
	"context"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/duskdata/dusk/dataframe"
)

// Exec runs a statement that makes or writes rather than answers, on the
// cluster ctx reaches: CREATE VIEW name AS query (the query bound again
// where the name is read), CREATE TABLE name AS query (its answer
// persisted in the workers' memory and registered as name), and COPY
// (query) TO 'path' (FORMAT parquet|csv|json) (written as the dataframe's
// writers write: a folder of files for Parquet). A query given to Exec is
// refused: Query binds those.
func (c *Context) Exec(ctx context.Context, query string, args ...any) error {
	tree, err := parse(query)
	if err != nil {
		return syntaxError(query, err)
	}
	if len(tree.Stmts) != 1 {
		return fmt.Errorf("sql: %d statements given; one at a time", len(tree.Stmts))
	}
	b := &binder{ctx: c, query: query, args: args}
	stmt := tree.Stmts[0].Stmt
	switch v := stmt.Node.(type) {
	case *pg.Node_ViewStmt:
		vs := v.ViewStmt
		sel := vs.Query.GetSelectStmt()
		if sel == nil {
			return b.errorf(vs.View, "a view is a SELECT")
		}
		name := strings.ToLower(vs.View.Relname)
		if _, ok := c.table(name); ok && !vs.Replace {
			return b.errorf(vs.View, "%q is a table already; CREATE OR REPLACE VIEW replaces it", name)
		}
		if _, err := b.selectStmt(sel); err != nil { // refused now, not where it is read
			return err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.views == nil {
			c.views = make(map[string]*cte)
		}
		c.views[name] = &cte{def: &pg.CommonTableExpr{Ctename: name, Ctequery: vs.Query}, colnames: strs(vs.Aliases)}
		delete(c.tables, name)
		return nil
	case *pg.Node_CreateTableAsStmt:
		cs := v.CreateTableAsStmt
		sel := cs.Query.GetSelectStmt()
		if sel == nil || cs.Into == nil || cs.Into.Rel == nil {
			return b.errorf(stmt, "CREATE TABLE takes AS SELECT ... here")
		}
		out, err := b.selectStmt(sel)
		if err != nil {
			return err
		}
		held, err := out.frame.Persist(ctx)
		if err != nil {
			return err
		}
		c.Register(cs.Into.Rel.Relname, held)
		return nil
	case *pg.Node_CopyStmt:
		cp := v.CopyStmt
		sel := cp.Query.GetSelectStmt()
		if cp.IsFrom || sel == nil || cp.Filename == "" {
			return b.errorf(stmt, "COPY takes (SELECT ...) TO 'path' here")
		}
		format := "parquet"
		for _, o := range cp.Options {
			d := o.GetDefElem()
			if d == nil || d.Defname != "format" {
				return b.errorf(o, "COPY takes the option FORMAT alone yet")
			}
			if s := d.Arg.GetString_(); s != nil {
				format = strings.ToLower(s.Sval)
			}
		}
		out, err := b.selectStmt(sel)
		if err != nil {
			return err
		}
		write, ok := copyFormats[format]
		if !ok {
			return b.errorf(stmt, "COPY FORMAT %s: parquet, csv or json", format)
		}
		_, err = write(ctx, out.frame, cp.Filename)
		return err
	case *pg.Node_SelectStmt, *pg.Node_ExplainStmt:
		return b.errorf(stmt, "a query answers: bind it with Query")
	}
	return b.errorf(stmt, "this statement is not supported yet (CREATE VIEW, CREATE TABLE AS and COPY are)")
}

// copyFormats are COPY's formats by name.
var copyFormats = map[string]func(ctx context.Context, f *dataframe.Frame, path string) ([]string, error){
	"parquet": func(ctx context.Context, f *dataframe.Frame, path string) ([]string, error) {
		return f.ToParquet(ctx, path)
	},
	"csv": func(ctx context.Context, f *dataframe.Frame, path string) ([]string, error) {
		return f.ToCSV(ctx, path)
	},
	"json": func(ctx context.Context, f *dataframe.Frame, path string) ([]string, error) {
		return f.ToJSON(ctx, path)
	},
}

// IsQuery reports whether the statement is a query (Query binds it) rather
// than one Exec runs; a statement that does not parse counts as a query,
// whose error Query gives.
func IsQuery(statement string) bool {
	tree, err := parse(statement)
	if err != nil || len(tree.Stmts) != 1 {
		return true
	}
	switch tree.Stmts[0].Stmt.Node.(type) {
	case *pg.Node_ViewStmt, *pg.Node_CreateTableAsStmt, *pg.Node_CopyStmt:
		return false
	}
	return true
}
