// Package array is Dusk's lazy, chunked n-dimensional array of float64 and
// int64: chunks are generated, combined and released as tree reductions on
// the cluster, so arrays larger than memory can be summed.
//
// It owns the Array plan (sources: FromSlice, Zeros, Ones, Full, Arange,
// Random; elementwise arithmetic and math with 0-d operands broadcast;
// reductions over all axes or one; Rechunk, Slice, Transpose, MatMul), its
// lowering to chunk tasks, the operations those tasks run, and the codecs of
// chunks (Dense) and partial reductions. A full reduction of a Random array
// generates and reduces each chunk block by block in one task, so no chunk
// is ever stored.
//
// Must never import: scheduler, worker, scheduler/server, worker/process or a transport.
package array
