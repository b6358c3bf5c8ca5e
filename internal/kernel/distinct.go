package kernel

import (
	"math/bits"

	"github.com/apache/arrow/go/v15/arrow"
)

// FirstRows returns, in order, the rows of cols that hold the first
// occurrence of their values: what pandas' drop_duplicates keeps. Nulls
// equal nulls and NaNs equal NaNs.
func FirstRows(cols []arrow.Array) []int32 {
	cols, release := WidenKeys(cols)
	defer release()
	if len(cols) == 0 {
		return nil
	}
	n := cols[0].Len()
	hashes := HashRows(cols, nil)
	eq := newKeyEq(cols, cols)
	size := 1 << bits.Len(uint(2*n+1))
	mask := uint64(size - 1)
	table := make([]int32, size)
	for i := range table {
		table[i] = -1
	}
	var keep []int32
	for i, h := range hashes {
		for s := h & mask; ; s = (s + 1) & mask {
			j := table[s]
			if j < 0 {
				table[s] = int32(i)
				keep = append(keep, int32(i))
				break
			}
			if hashes[j] == h && eq.equal(int(j), i) {
				break
			}
		}
	}
	return keep
}
