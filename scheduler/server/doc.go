// Package server runs the scheduler core as a live process: one goroutine
// feeds the core (package scheduler) the messages arriving on a
// transport.Network from workers and clients and carries out what it
// decides, and answers itself what is no task's business (the task
// stream, profiles, the dashboard's views). The same server runs in the
// in-process local cluster and, over gRPC, in `dusk scheduler`.
//
// Must never import: worker/process, the collections (dataframe, bag, array).
package server
