package kernel_test

import (
	"testing"

	"github.com/duskdata/dusk/internal/kernel/kernelbench"
)

// BenchmarkKernels times every kernel of kernelbench's table over a
// million values, in ns a value and MB/s, the floor (a copy of the same
// bytes) first: go test -bench Kernels ./internal/kernel/ (the CPU is in
// the header go test prints); `dusk bench kernels` runs the same table.
func BenchmarkKernels(b *testing.B) {
	for _, c := range kernelbench.Cases() {
		b.Run(c.Name, func(b *testing.B) {
			run := c.Setup()
			b.SetBytes(c.Bytes)
			b.ResetTimer()
			for range b.N {
				if err := run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/kernelbench.Rows, "ns/value")
		})
	}
}

// TestKernelCases runs each case of the table once: every setup builds
// and every kernel runs without error.
func TestKernelCases(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a million values for each of the table's cases")
	}
	seen := map[string]bool{}
	for _, c := range kernelbench.Cases() {
		if seen[c.Name] || c.Bytes <= 0 || c.Group == "" {
			t.Errorf("case %q: a repeated name, no bytes or no group", c.Name)
		}
		seen[c.Name] = true
		if err := c.Setup()(); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	if !seen[kernelbench.Floor] {
		t.Errorf("no floor case %q", kernelbench.Floor)
	}
}
