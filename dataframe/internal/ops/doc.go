// Package ops holds the operations a dataframe's tasks run on one
// partition, and what the other stages' operations share: selecting,
// filtering and computing columns (ops.go), renaming, aligning, sampling
// (rows.go), reading a slice of files through the io/files formats with
// the columns and pushed-down column tests a plan gives (read.go,
// coltest.go, formats.go), writing partitions (write.go) and calling the
// user's registered functions (udf.go); args.go is how operations'
// arguments carry schemas. Each operation registers itself by name with
// internal/registry in its file's init; plans name them in their tasks.
//
// It is the lowest stage of the dataframe pipeline (expr, ops, exchange,
// agg, plan, dataframe): it knows records and arguments, never plans.
//
// Must never import: dataframe/internal/plan, dataframe/internal/agg, dataframe/internal/exchange, scheduler, worker, a transport.
package ops
