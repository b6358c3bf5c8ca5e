// Package scheduler is the scheduler's core: a state machine that holds every
// task's state and every worker's, takes events (a graph submitted, a task
// finished or erred, a worker joined or was lost, a client released keys) and
// answers with messages to send (run this task on that worker, free these
// keys, tell the client its key is ready or has failed).
//
// It has no goroutines, clocks or sockets: the driver around it (see
// scheduler/server) does the I/O and feeds time in as task durations that the
// workers measure. Tests replay exact event sequences, failures included, from
// the scenario files in testdata/.
//
// Task states follow Dask's: released, waiting, no-worker, queued, processing,
// memory, erred, forgotten.
//
// Must never import: a transport (internal/transport, gRPC), worker, or the
// collections.
package scheduler
