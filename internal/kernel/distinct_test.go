package kernel

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
)

// FirstRows keeps the first row of each distinct pair of values, as a map
// of the pairs seen does, with nulls and NaNs each one value.
func TestFirstRows(t *testing.T) {
	const n = 5000
	ints, floats := make([]int64, n), make([]float64, n)
	valid := make([]byte, (n+7)/8)
	for i := range n {
		ints[i] = int64(i*7919) % 37
		floats[i] = float64(i%5) - 2
		if i%11 == 0 {
			floats[i] = math.NaN()
		}
		if i%13 != 0 {
			valid[i/8] |= 1 << (i % 8)
		}
	}
	strs := make([]string, n)
	for i := range strs {
		strs[i] = fmt.Sprint("s", i%3)
	}
	offs, data := stringOffsets(strs)
	cols := []arrow.Array{NewInt64(ints, valid), NewFloat64(floats, nil), NewString(offs, data, nil)}
	seen := map[string]bool{}
	var want []int32
	for i := range n {
		k := fmt.Sprint(ints[i], valid[i/8]&(1<<(i%8)) != 0, floats[i], strs[i]) // NaN prints as NaN
		if valid[i/8]&(1<<(i%8)) == 0 {
			k = fmt.Sprint("null", floats[i], strs[i])
		}
		if !seen[k] {
			seen[k] = true
			want = append(want, int32(i))
		}
	}
	if got := FirstRows(cols); !slices.Equal(got, want) {
		t.Fatalf("kept %d rows %v..., want %d %v...", len(got), got[:min(5, len(got))], len(want), want[:min(5, len(want))])
	}
}
