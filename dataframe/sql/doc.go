// Package sql runs SQL over dataframes: a query is parsed by PostgreSQL's
// own parser (libpg_query: natively where cgo is, as WebAssembly where it
// is not; DESIGN says why) and bound onto the dataframe API, so that a
// query's plan is the plan its dataframe calls would make, optimized,
// pushed into the readers and explained the same way. Tables are frames
// registered by name in a Context; Query returns a lazy frame.
//
// What binds today: SELECT with expressions and aliases over one table or
// inner joins (JOIN ... ON or USING, or tables listed in FROM joined by
// equalities in WHERE), WHERE, GROUP BY (columns, select aliases,
// ordinals), aggregates (sum, avg, count, count(*), count(DISTINCT x),
// min, max, stddev, variance, median), HAVING, UNION [ALL], INTERSECT,
// EXCEPT, ORDER BY (ASC/DESC, by
// alias, ordinal or expression), LIMIT, $n parameters, CASE, CAST and ::,
// EXTRACT, date and interval literals and date arithmetic, LIKE,
// BETWEEN, IN lists, IS [NOT] NULL, COALESCE and NULLIF. Anything else is
// refused with an error that names it and where it is in the query.
//
// The binder by stage: context.go (tables, Query, EXPLAIN), select.go (a
// SELECT's list, HAVING, DISTINCT, ORDER BY, LIMIT), from.go (FROM, joins,
// WITH, table functions), predicate.go (splitting and factoring WHERE),
// group.go (scopes, GROUP BY and aggregates), subquery.go (subqueries as
// joins), expr.go and functions.go (expressions), errors.go (positions).
//
// Must never import: scheduler, worker, a transport.
package sql
