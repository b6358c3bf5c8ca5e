// Package sql runs SQL over dataframes: a query is parsed by PostgreSQL's
// own parser (libpg_query: natively where cgo is, as WebAssembly where it
// is not; DESIGN says why) and bound onto the dataframe API, so that a
// query's plan is the plan its dataframe calls would make, optimized,
// pushed into the readers and explained the same way. Tables are frames
// registered by name in a Context, or files table functions read
// (read_parquet); Query returns a lazy frame. Subqueries become joins.
// Where SQL's meaning of null differs from the dataframe API's (pandas'),
// the plan says SQL's: null join keys match nothing, null group keys group,
// sum of no values is null, NOT IN over a null keeps no row. The README's
// SQL section lists what binds; anything else is refused with an error
// that names it and where it is in the query.
//
// The binder by stage: context.go (tables, Query, EXPLAIN), select.go (a
// SELECT's list, HAVING, DISTINCT, ORDER BY, LIMIT and OFFSET, set
// operations), from.go (FROM, joins with SQL's nulls and their order,
// WITH, table functions),
// predicate.go (splitting and factoring WHERE), group.go (scopes, GROUP BY
// and aggregates), subquery.go (subqueries as joins), expr.go and
// functions.go (expressions), errors.go (positions).
//
// Must never import: scheduler, worker, a transport.
package sql
