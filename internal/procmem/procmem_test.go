package procmem

import (
	"os"
	"runtime"
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
