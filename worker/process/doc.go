// Package process runs the worker core as a live process: one goroutine
// feeds the core (package worker) the scheduler's messages and the outcomes
// of its tasks, runs the tasks it starts on its threads, fetches inputs
// from peers, pushes shuffle pieces, reads the process's memory and
// spills, and reports to the scheduler. The same process runs in the
// in-process local cluster and, over gRPC, in `dusk worker`.
//
// Must never import: scheduler, scheduler/server, the collections
// (dataframe, bag, array).
package process
