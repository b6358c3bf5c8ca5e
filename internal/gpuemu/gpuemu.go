// Package gpuemu builds the GPU host emulator (gpu/testdata/emulator.cc):
// a stand-in for the NVIDIA driver library that runs Dusk's kernels on
// the CPU, so that tests drive the GPU code paths, across processes too,
// on machines without a GPU. Only tests import it.
//
// Must never import: anything outside the standard library.
package gpuemu

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Build compiles the emulator into t's temporary directory and returns the
// library's path, for gpu.LibraryEnv; it skips t without a C++ compiler.
func Build(t testing.TB) string {
	t.Helper()
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no C++ compiler (g++) to build the GPU emulator")
	}
	_, here, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(here), "..", "..", "gpu", "testdata", "emulator.cc")
	lib := filepath.Join(t.TempDir(), "libcuda.so.1")
	if out, err := exec.Command(cxx, "-shared", "-fPIC", "-O2", "-o", lib, src).CombinedOutput(); err != nil {
		t.Fatalf("build the GPU emulator: %v\n%s", err, out)
	}
	return lib
}
