// Package store holds a worker's results, in memory or spilled to disk,
// and counts their bytes: the worker's core decides when and how much to
// spill (worker.Spill instructions), the store carries it out, least
// recently used first, and reads spilled values back when asked for them.
// Spill files are compressed blocks, each with its checksum.
//
// Must never import: scheduler, a transport (internal/transport, gRPC),
// scheduler/server, worker/process, or the collections.
package store
