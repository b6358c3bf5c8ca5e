package agg

import (
	"fmt"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
)

// TestMostlyDistinct checks when a partition's pre-aggregation is skipped:
// keys whose leading rows are distinct, unless they group by direct
// indexing over fewer codes than half the rows (which then repeat).
func TestMostlyDistinct(t *testing.T) {
	const rows = 40 * probeRows
	ints := func(f func(i int) int64) arrow.Array {
		v := make([]int64, rows)
		for i := range v {
			v[i] = f(i)
		}
		return kernel.NewInt64(v, nil)
	}
	strs := func(f func(i int) int64) arrow.Array {
		offs, data := []int32{0}, []byte{}
		for i := range rows {
			data = fmt.Appendf(data, "id%010d", f(i))
			offs = append(offs, int32(len(data)))
		}
		return kernel.NewString(offs, data, nil)
	}
	for _, tc := range []struct {
		name string
		key  arrow.Array
		want bool
	}{
		{"strings distinct", strs(func(i int) int64 { return int64(i) * 7 }), true},
		{"strings of few values", strs(func(i int) int64 { return int64(i % 100) }), false},
		{"ints over twice the rows", ints(func(i int) int64 { return int64(i*7919) % (2 * rows) }), true},
		{"ints over a tenth of the rows", ints(func(i int) int64 { return int64(i % (rows / 10)) }), false},
		{"ints too wide to index", ints(func(i int) int64 { return int64(i) << 40 }), true},
		{"ints repeating after the sample", ints(func(i int) int64 { return int64(i % (2 * probeRows)) }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.key.Release()
			if got := mostlyDistinct([]arrow.Array{tc.key}); got != tc.want {
				t.Errorf("mostlyDistinct = %v, want %v", got, tc.want)
			}
		})
	}
}
