//go:build !cgo

package sql

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	pgquery "github.com/wasilibs/go-pgquery"
)

// parse is PostgreSQL's parser compiled to WebAssembly, for builds without
// cgo (the static image): the same syntax tree, slower to start.
func parse(query string) (*pg.ParseResult, error) { return pgquery.Parse(query) }
