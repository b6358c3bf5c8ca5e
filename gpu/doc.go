// Package gpu holds Dusk's optional CUDA kernels for hot dataframe and array
// operations. They are loaded at run time only when a GPU and its driver are
// present; without one, every operation runs on the CPU kernels unchanged,
// and Dusk builds and tests without a CUDA toolkit.
//
// Kernels is what the collections call, on plain slices; Device implements
// it on a GPU (driver.go binds libcuda through purego; kernels/dusk.cu is
// compiled to the embedded kernels/dusk.ptx by kernels/gen.sh), and
// Reference in sequential Go, the answer the device is tested against.
// testdata/emulator.cc runs dusk.cu on the CPU behind a stand-in driver, so
// that the device code is tested on machines without a GPU.
//
// Must never import: scheduler, worker, scheduler/server, worker/process or a transport; the
// collections reach it through an interface, never the other way round.
package gpu
