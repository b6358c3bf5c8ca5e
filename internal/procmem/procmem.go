// Package procmem reads a process's memory from the operating system: its
// resident set now and at its peak, the part of this process's that it
// uses, and the machine's total. On systems without /proc the readings are
// 0, which callers treat as unknown.
//
// Must never import: anything outside the standard library.
package procmem

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
)

// RSS is the resident memory of process pid (0: this one) in bytes.
func RSS(pid int) int64 { return status(pid, "VmRSS:") }

// Private is the resident memory process pid (0: this one) holds as its
// own: anonymous and shared-memory pages, not the file pages it maps (its
// program's text, about 65 MiB of a worker's, and mapped input files),
// which are the kernel's cache, clean and dropped under pressure. It is
// what a memory limit counts; the resident set where the kernel does not
// report the parts (before Linux 4.5).
func Private(pid int) int64 {
	b, err := os.ReadFile(statusPath(pid))
	if err != nil {
		return 0
	}
	anon, shmem, rss := fieldIn(b, "RssAnon:"), fieldIn(b, "RssShmem:"), fieldIn(b, "VmRSS:")
	if anon == 0 {
		return rss
	}
	return anon + shmem
}

// InUse is the private memory this process uses: Private less the Go
// heap's free memory, which the runtime keeps mapped and reuses before it
// asks the operating system for more.
func InUse() int64 {
	rss := Private(0)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return rss
	}
	return max(rss-int64(sample[0].Value.Uint64()), 0)
}

// PeakRSS is the most resident memory process pid (0: this one) has had.
func PeakRSS(pid int) int64 { return status(pid, "VmHWM:") }

// Total is the memory this process may use in bytes: the machine's, or
// less where a control group (a container) limits it.
func Total() int64 {
	total := field("/proc/meminfo", "MemTotal:")
	for _, path := range []string{
		"/sys/fs/cgroup/memory.max",                   // cgroup v2
		"/sys/fs/cgroup/memory/memory.limit_in_bytes", // cgroup v1
	} {
		if limit := cgroupLimit(path); limit > 0 && (total == 0 || limit < total) {
			total = limit
		}
	}
	return total
}

// ReadCeiling is the most memory one read of a file may ask for: the Go
// memory limit where the process has one (a worker sets it under its
// own), else half of Total. A reader fails a claim past it, naming the
// file, rather than allocating what a damaged count says (issue 54).
func ReadCeiling() int64 {
	if limit := debug.SetMemoryLimit(-1); limit < math.MaxInt64 {
		return limit
	}
	if total := Total(); total > 0 {
		return total / 2
	}
	return math.MaxInt64 // unknown: the allocation decides
}

// cgroupLimit reads a control group's memory limit; 0 when there is none
// ("max" in v2, a huge number in v1) or the file is missing.
func cgroupLimit(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v <= 0 || v >= 1<<60 {
		return 0
	}
	return v
}

func status(pid int, name string) int64 { return field(statusPath(pid), name) }

func statusPath(pid int) string {
	if pid > 0 {
		return fmt.Sprintf("/proc/%d/status", pid)
	}
	return "/proc/self/status"
}

// field reads a "Name: N kB" line of a file.
func field(path, name string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return fieldIn(b, name)
}

// fieldIn reads a "Name: N kB" line of a file's bytes.
func fieldIn(b []byte, name string) int64 {
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == name {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
