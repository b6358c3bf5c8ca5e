//go:build cgo

package sql

import pg "github.com/pganalyze/pg_query_go/v6"

// parse is PostgreSQL's parser, linked natively.
func parse(query string) (*pg.ParseResult, error) { return pg.Parse(query) }
