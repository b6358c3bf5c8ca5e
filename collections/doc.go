// Package collections is what the lazy collections (dataframe, bag, array)
// share: the Executor they hand their graphs to, the one rule by which
// Compute and Persist find it, and the pinned results a persisted collection
// stands on.
//
// Finding the executor: the one in the context (dusk.WithClient), else the
// default, which is the client most recently started by dusk.NewClient and
// not yet closed.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, a transport.
package collections
