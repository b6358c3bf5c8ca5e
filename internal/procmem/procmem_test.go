package procmem

import (
	"os"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
)

func TestReadings(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here")
	}
	before := RSS(0)
	buf := make([]byte, 64<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	after := RSS(os.Getpid())
	if before <= 0 || after < before+48<<20 {
		t.Fatalf("RSS %d before touching 64 MiB, %d after", before, after)
	}
	if peak := PeakRSS(0); peak < after {
		t.Fatalf("peak %d below current %d", peak, after)
	}
	if Total() < after {
		t.Fatalf("total memory %d", Total())
	}
	// The 64 MiB in use count; once collected, they are the Go heap's free
	// memory, which does not.
	inUse := InUse()
	if inUse < 48<<20 || inUse > RSS(0) {
		t.Fatalf("in use %d with 64 MiB held, of RSS %d", inUse, RSS(0))
	}
	_ = buf[0]
	runtime.GC()
	if freed := InUse(); freed > inUse-48<<20 {
		t.Fatalf("in use %d after 64 MiB were freed, %d before", freed, inUse)
	}
}

// A mapped file's pages are resident but not private: the kernel may drop
// them. Anonymous memory is both.
func TestPrivate(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here")
	}
	f, err := os.Create(t.TempDir() + "/mapped")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const size = 64 << 20
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	rss, private := RSS(0), Private(0)
	var sum byte
	for i := 0; i < size; i += 4096 {
		sum += m[i]
	}
	if grew := RSS(0) - rss; grew < 48<<20 {
		t.Fatalf("RSS grew %d reading a 64 MiB mapped file", grew)
	}
	if grew := Private(0) - private; grew > 16<<20 {
		t.Fatalf("private memory grew %d reading a 64 MiB mapped file (sum %d)", grew, sum)
	}
	debug.FreeOSMemory() // the heap's free pages (TestReadings') go back
	private = Private(0)
	buf := make([]byte, size)
	for i := 0; i < size; i += 4096 {
		buf[i] = 1
	}
	if grew := Private(0) - private; grew < 48<<20 {
		t.Fatalf("private memory grew %d touching 64 MiB", grew)
	}
	runtime.KeepAlive(buf)
}

func TestCgroupLimit(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		content string
		want    int64
	}{
		{"max\n", 0},
		{"9223372036854771712\n", 0},
		{"2147483648\n", 2 << 30},
		{"", 0},
	} {
		p := dir + "/memory.max"
		if err := os.WriteFile(p, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := cgroupLimit(p); got != tc.want {
			t.Errorf("%q: %d, want %d", tc.content, got, tc.want)
		}
	}
	if got := cgroupLimit(dir + "/missing"); got != 0 {
		t.Errorf("missing file: %d", got)
	}
}
