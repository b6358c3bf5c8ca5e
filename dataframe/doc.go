// Package dataframe is Dusk's lazy, partitioned dataframe. A Frame is a plan:
// every operation adds a step, nothing runs until Compute, Persist, Head or
// Len, and then the plan becomes a graph of tasks that the cluster runs, one
// task per partition and step (fused into one where steps are partition-wise).
// Partitions are Arrow records. Before a plan runs, the optimizer prunes
// unused columns, pushes filters toward the data and drops shuffles of data
// already partitioned as needed (Explain shows the result); operations that
// move rows between partitions (joins, sorts, groupings with many groups,
// drop_duplicates) lower to peer-to-peer shuffles.
//
// Errors in building a plan (an unknown column, a type mismatch) are kept in
// the frame and returned by Err and by every method that runs it, so calls
// chain without checks in between.
//
// The pipeline by stage: expressions, their typing and evaluation are
// package dataframe/internal/expr (one table of operations); this package builds
// them through Expr (expr.go), plans (plan.go, the nodes of frame, join,
// groupby, sort, shuffle, files), optimizes (optimize.go; pruning by the function table, expr.MayMatch),
// lowers each node to tasks (the *ops.go files, registered in ops.go and
// formats.go) and runs them through the client.
//
// Must never import: scheduler, worker, scheduler/server, worker/process
// or a transport: plans run through collections.Executor, which the Dusk
// client implements.
package dataframe
