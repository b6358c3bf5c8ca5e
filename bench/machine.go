package bench

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/cpu"

	"github.com/duskdata/dusk/internal/kernel"
)

// machine names the computer a benchmark ran on: the CPU's model, its
// cores and the vector extensions kernels may use, printed above every
// table and recorded in every --json line, because figures differ between
// machines (issue 55: a Xeon with AVX-512 ranked the engines otherwise),
// and whether the build has the SIMD kernels.
func machine() string {
	model := cpuModel()
	if model == "" {
		model = runtime.GOARCH
	}
	build := "portable kernels"
	if kernel.SIMD {
		build = "SIMD kernels (GOEXPERIMENT=simd)"
	}
	return fmt.Sprintf("%s, %d cores, %s; %s", model, runtime.NumCPU(), strings.Join(cpuFeatures(), " "), build)
}

// cpuModel is /proc/cpuinfo's "model name", "" where there is none.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// cpuFeatures are the architecture and the extensions that matter to the
// kernels, with "no avx512" said where an x86 CPU lacks it.
func cpuFeatures() []string {
	out := []string{runtime.GOARCH}
	switch runtime.GOARCH {
	case "amd64":
		for _, f := range []struct {
			name string
			has  bool
		}{{"avx2", cpu.X86.HasAVX2}, {"bmi2", cpu.X86.HasBMI2}, {"avx512f", cpu.X86.HasAVX512F}, {"avx512bw", cpu.X86.HasAVX512BW}} {
			if f.has {
				out = append(out, f.name)
			}
		}
		if !cpu.X86.HasAVX512F {
			out = append(out, "(no avx512)")
		}
	case "arm64":
		if cpu.ARM64.HasASIMD {
			out = append(out, "asimd")
		}
		if cpu.ARM64.HasSVE {
			out = append(out, "sve")
		}
	}
	return out
}
