//go:build !nogpu

package gpu

import (
	"cmp"
	"fmt"

	"github.com/ebitengine/purego"
)

// openDriver opens the driver library at path (default: libcuda.so.1) and
// binds its functions (the _v2 names are the 64-bit ones every driver
// since CUDA 4 exports).
func openDriver(path string) (*driver, error) {
	paths := []string{"libcuda.so.1", "libcuda.so"}
	if path != "" {
		paths = []string{path}
	}
	var lib uintptr
	var first error
	for _, p := range paths {
		var err error
		if lib, err = purego.Dlopen(p, purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
			first = nil
			break
		}
		first = cmp.Or(first, err)
	}
	if first != nil {
		return nil, fmt.Errorf("gpu: no NVIDIA driver: %w", first)
	}
	d := &driver{lib: lib}
	for _, f := range []struct {
		fn   any
		name string
	}{
		{&d.cuInit, "cuInit"},
		{&d.cuGetErrorName, "cuGetErrorName"},
		{&d.cuDeviceGetCount, "cuDeviceGetCount"},
		{&d.cuDeviceGet, "cuDeviceGet"},
		{&d.cuDeviceGetName, "cuDeviceGetName"},
		{&d.cuDeviceTotalMem, "cuDeviceTotalMem_v2"},
		{&d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
		{&d.cuCtxSetCurrent, "cuCtxSetCurrent"},
		{&d.cuCtxSynchronize, "cuCtxSynchronize"},
		{&d.cuModuleLoadData, "cuModuleLoadData"},
		{&d.cuModuleGetFunction, "cuModuleGetFunction"},
		{&d.cuMemAlloc, "cuMemAlloc_v2"},
		{&d.cuMemFree, "cuMemFree_v2"},
		{&d.cuMemAllocHost, "cuMemAllocHost_v2"},
		{&d.cuMemcpyHtoD, "cuMemcpyHtoD_v2"},
		{&d.cuMemcpyDtoH, "cuMemcpyDtoH_v2"},
		{&d.cuMemsetD8, "cuMemsetD8_v2"},
		{&d.cuLaunchKernel, "cuLaunchKernel"},
	} {
		sym, err := purego.Dlsym(lib, f.name)
		if err != nil {
			purego.Dlclose(lib)
			return nil, fmt.Errorf("gpu: the NVIDIA driver library lacks %s (too old a driver?): %w", f.name, err)
		}
		purego.RegisterFunc(f.fn, sym)
	}
	return d, nil
}
