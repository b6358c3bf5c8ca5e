// Package array is Dusk's lazy, chunked n-dimensional array of float64 and
// int64: chunks are generated, combined and released as tree reductions on
// the cluster, so arrays larger than memory can be summed.
//
// Must never import: scheduler, worker, internal/cluster or a transport.
package array
