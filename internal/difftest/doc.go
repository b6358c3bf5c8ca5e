// Package difftest is a differential fuzzer: it makes random tables and
// random pipelines, runs each pipeline on Dusk and, as SQL written beside
// it, on DuckDB (embedded through duckdb-go) over the same rows, and
// compares the answers. Tables hold integers of every width and sign,
// floats, decimals, strings, bools, dates and timestamps. DuckDB reads them from
// Parquet files; Dusk from the same files, from CSV it wrote of them, or
// from the Arrow records themselves (strings of few values as
// dictionaries), so that each format's writer and reader are checked
// against an independent reading.
// A disagreement is shrunk to fewer steps and rows and saved under
// testdata, which the ordinary tests replay. TestSQLDiff does the same
// with random SQL queries (sqlgen.go: projections, groupings with HAVING,
// every kind of join, EXISTS, IN and scalar subqueries, set operations,
// CTEs, ORDER BY with NULLS FIRST/LAST, LIMIT and OFFSET), the same text
// run by DuckDB and by Dusk's SQL front end (dataframe/sql), whose answers
// must follow SQL's rules for nulls, not the caveats below.
//
// It is a module of its own so that DuckDB, a cgo library of some
// hundred megabytes, is no dependency of Dusk's. Run it from this folder:
//
//	go test ./...                              # the saved cases and 30 seeds
//	go test -run TestDiff -diff.seeds 20000    # as many seeds as asked
//	go test -run TestSQLDiff -diff.seeds 2000  # SQL queries, as many seeds
//	go test -run TestDiff -diff.seed 1234 -v   # one seed, its pipeline printed
//
// Semantics that differ by design are written into the SQL, not skipped:
// Dusk drops rows with a null group key unless KeepNullKeys (the SQL
// filters them out), its sum of no values is 0 where SQL's is NULL (the SQL
// coalesces), its join matches null keys (IS NOT DISTINCT FROM), and it
// compares floats as IEEE 754 does, NaN unordered and equal to nothing,
// where DuckDB orders NaN above every number (the SQL tests isnan); its
// median of values holding a NaN is NaN and its minimum and maximum leave
// NaNs out; its median of decimals is a float64 (DuckDB's a decimal of
// their scale); a zoned timestamp floored to an hour keeps its offset, where
// DuckDB takes the later of two equal wall clocks at a clock change; its
// correlation of fewer than two pairs or of a column without variance is
// null (as Spark's), DuckDB's NaN; its first and last are the first and
// last non-null values in the frame's order, drawn only after a sort (the
// SQL orders the aggregate by the sort's columns and filters the nulls);
// it computes decimals of more than 18 digits as float64 (their minimum
// and maximum are floats, never summed or averaged again: values that
// cancel leave float64's noise), while it compares, sorts, groups, joins
// and chooses between them exactly. It computes integers as int64 and refuses
// uint64 values above int64's range there (kernel.RangeError), so
// full-range uint64 columns (hashes) are keys, sorted, compared and counted
// only.
// Durations (a timestamp less its day's
// start) are compared as their microseconds, as the SQL computes them.
package difftest
