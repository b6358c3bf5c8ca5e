// Package worker is the worker's core: a state machine for the tasks the
// scheduler sends and the data they need (fetch it from peers, run the task
// when its inputs are here and a thread and its resources are free, report
// the result), the store that holds results and counts their bytes, and the
// function that runs one task, turning a panic into the task's error.
//
// Like the scheduler, the state machine has no goroutines, clocks, files,
// locks or sockets (the layering test checks):
// the driver in worker/process runs the threads and the transfers it asks for.
//
// Must never import: a transport (internal/transport, gRPC), scheduler, or the
// collections.
package worker
