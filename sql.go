package dusk

import (
	"context"

	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/dataframe/sql"
)

// SQL binds a query (PostgreSQL's dialect) over the frames registered with
// Register and the files read_parquet('...'), read_csv, read_json and
// read_avro name, and returns its answer as a lazy frame: the same plan the
// dataframe calls would make, so SQL and the dataframe API compose both
// ways. $1, $2... take args' values; EXPLAIN gives the plan a line a row.
// An error is kept in the frame (Err), with the line and column of the
// query it is at.
func (c *Client) SQL(query string, args ...any) *dataframe.Frame {
	return c.sqlContext().Query(query, args...)
}

// Exec runs a statement that makes or writes rather than answers, on the
// client's cluster: CREATE VIEW, CREATE TABLE ... AS (persisted in the
// workers' memory), COPY (query) TO 'path' (FORMAT parquet|csv|json).
func (c *Client) Exec(ctx context.Context, statement string, args ...any) error {
	return c.sqlContext().Exec(WithClient(ctx, c), statement, args...)
}

// Register names a frame for the client's SQL queries, replacing a frame
// of that name.
func (c *Client) Register(name string, f *dataframe.Frame) { c.sqlContext().Register(name, f) }

// Tables lists the names registered for SQL, sorted.
func (c *Client) Tables() []string { return c.sqlContext().Tables() }

func (c *Client) sqlContext() *sql.Context {
	c.sqlOnce.Do(func() { c.sql = sql.NewContext(nil) })
	return c.sql
}
