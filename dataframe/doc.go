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
// The pipeline by stage, each an internal package that imports only
// those before it: expr (expressions, their typing and evaluation, one
// table of operations), ops (the operations a task runs on one partition:
// select, filter, columns, reading and writing files, user functions),
// exchange (shuffles, sorts and joins), agg (groupings: partial states,
// their combination, holistic and GPU paths), plan (a Node per step, the
// optimizer, Explain, the steps settled by sizes, lowering to a graph).
// This package is the public API on top: Frame, Expr, Agg, Grouped,
// Table and the readers and writers build plan nodes, check what users
// give them, and run plans through the client.
//
// Must never import: scheduler, worker, scheduler/server, worker/process
// or a transport: plans run through collections.Executor, which the Dusk
// client implements.
package dataframe
