package ops

import (
	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/internal/registry"
)

// Accelerator returns the GPU kernels of a task that holds a GPU, or nil
// where the task does not or this process has no GPU: the caller then runs
// its CPU path.
func Accelerator(tc *registry.Context) gpu.Kernels { return gpu.ForTask(tc != nil && tc.GPU) }
