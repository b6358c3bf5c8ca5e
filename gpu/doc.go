// Package gpu holds Dusk's optional CUDA kernels for hot dataframe and array
// operations. They are loaded at run time only when a GPU and its driver are
// present; without one, every operation runs on the CPU kernels unchanged,
// and Dusk builds and tests without a CUDA toolkit.
//
// Must never import: scheduler, worker, internal/cluster or a transport; the
// collections reach it through an interface, never the other way round.
package gpu
