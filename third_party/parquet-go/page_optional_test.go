package parquet

import (
	"bytes"
	"math/bits"
	"math/rand"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/format"
)

// TestAllDefined: a page's levels are taken as all defined only where each
// one is the maximum, whatever runs the encoder chose, and levels written
// all at the maximum are known so from their first run.
func TestAllDefined(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := range 2000 {
		n := r.Intn(3000)
		maxLevel := byte(1 + r.Intn(3))
		levels := bytes.Repeat([]byte{maxLevel}, n)
		full := i%2 == 0 || n == 0
		if !full { // some levels below the maximum, anywhere
			for range 1 + r.Intn(4) {
				levels[r.Intn(n)] = byte(r.Intn(int(maxLevel)))
			}
			full = bytes.Count(levels, []byte{maxLevel}) == n
		}
		enc := &rle.Encoding{BitWidth: bits.Len8(maxLevel)}
		data, err := enc.EncodeLevels(nil, levels)
		if err != nil {
			t.Fatal(err)
		}
		if got := allDefined(format.RLE, data, n, maxLevel); got != full {
			t.Fatalf("%d levels of max %d, all at it %v: allDefined says %v", n, maxLevel, full, got)
		}
		if allDefined(format.BitPacked, data, n, maxLevel) {
			t.Fatal("bit-packed levels taken for an RLE run")
		}
		if n > 0 && allDefined(format.RLE, data, n+1, maxLevel) {
			t.Fatalf("a run of %d taken for %d levels", n, n+1)
		}
	}
	for _, data := range [][]byte{nil, {}, {4 << 1}, {0x80}} { // cut short
		if allDefined(format.RLE, data, 4, 1) {
			t.Errorf("%v: taken for 4 defined levels", data)
		}
	}
}
