package kernel

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
)

// GroupRows numbers groups as a map of the printed keys does, and gives
// null keys no group.
func TestGroupRows(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, n := range []int{0, 1, 7, 5000} {
		ints := make([]int64, n)
		strs := make([]string, n)
		valid := make([]byte, (n+7)/8)
		for i := range n {
			ints[i] = int64(r.Intn(20))
			strs[i] = fmt.Sprint("k", r.Intn(30))
			if r.Intn(9) != 0 {
				valid[i/8] |= 1 << (i % 8)
			}
		}
		offs, data := stringOffsets(strs)
		cols := []arrow.Array{NewInt64(ints, valid), NewString(offs, data, nil)}
		ids, firsts := GroupRows(cols, nil)
		seen := map[string]int32{}
		for i := range n {
			want := int32(-1)
			if valid[i/8]&(1<<(i%8)) != 0 {
				k := fmt.Sprint(ints[i], strs[i])
				g, ok := seen[k]
				if !ok {
					g = int32(len(seen))
					seen[k] = g
					if firsts[g] != int32(i) {
						t.Fatalf("n=%d: group %d first at row %d, want %d", n, g, firsts[g], i)
					}
				}
				want = g
			}
			if ids[i] != want {
				t.Fatalf("n=%d row %d: group %d, want %d", n, i, ids[i], want)
			}
		}
		if len(firsts) != len(seen) {
			t.Fatalf("n=%d: %d groups, want %d", n, len(firsts), len(seen))
		}
	}
}
