package gpu

import (
	"fmt"
	"os"
	"sync"
	"unsafe"
)

// result is a CUresult: 0 is success.
type result int32

// driver is the part of the CUDA driver API (libcuda) the kernels use,
// bound at run time, so that Dusk builds without CUDA.
type driver struct {
	lib uintptr

	cuInit                   func(flags uint32) result
	cuGetErrorName           func(r result, name **byte) result
	cuDeviceGetCount         func(n *int32) result
	cuDeviceGet              func(dev *int32, ordinal int32) result
	cuDeviceGetName          func(name []byte, n int32, dev int32) result
	cuDeviceTotalMem         func(bytes *uint64, dev int32) result
	cuDevicePrimaryCtxRetain func(ctx *uintptr, dev int32) result
	cuCtxSetCurrent          func(ctx uintptr) result
	cuCtxSynchronize         func() result
	cuModuleLoadData         func(mod *uintptr, image unsafe.Pointer) result
	cuModuleGetFunction      func(fn *uintptr, mod uintptr, name string) result
	cuMemAlloc               func(ptr *uint64, size uint64) result
	cuMemFree                func(ptr uint64) result
	cuMemAllocHost           func(p *unsafe.Pointer, size uint64) result
	cuMemcpyHtoD             func(dst uint64, src unsafe.Pointer, size uint64) result
	cuMemcpyDtoH             func(dst unsafe.Pointer, src uint64, size uint64) result
	cuMemsetD8               func(dst uint64, v uint8, n uint64) result
	cuLaunchKernel           func(f uintptr, gx, gy, gz, bx, by, bz, shared uint32, stream uintptr, params unsafe.Pointer, extra uintptr) result
}

// LibraryEnv names the environment variable that, when set, is the path of
// the driver library to load instead of libcuda.so.1.
const LibraryEnv = "DUSK_CUDA_LIBRARY"

// loadDriver returns the driver library of the path the environment names,
// opened and bound once per path: a driver library, once initialized, runs
// threads of its own and is never closed.
func loadDriver() (*driver, error) {
	path := os.Getenv(LibraryEnv)
	driversMu.Lock()
	defer driversMu.Unlock()
	if l, ok := drivers[path]; ok {
		return l.d, l.err
	}
	d, err := openDriver(path)
	drivers[path] = loadedDriver{d, err}
	return d, err
}

type loadedDriver struct {
	d   *driver
	err error
}

var (
	driversMu sync.Mutex
	drivers   = map[string]loadedDriver{} // by LibraryEnv's value
)

// check turns a CUresult into an error that names the call and the
// driver's name for the code (CUDA_ERROR_OUT_OF_MEMORY, ...).
func (d *driver) check(call string, r result) error {
	if r == 0 {
		return nil
	}
	name := fmt.Sprintf("CUresult %d", r)
	var s *byte
	if d.cuGetErrorName(r, &s) == 0 && s != nil {
		name = cString(s)
	}
	return fmt.Errorf("gpu: %s: %s", call, name)
}

// cString copies the NUL-terminated string that the driver owns at p.
func cString(p *byte) string {
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
