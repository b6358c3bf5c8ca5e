package procmem

import (
	"os"
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
	_ = buf[0]
}
