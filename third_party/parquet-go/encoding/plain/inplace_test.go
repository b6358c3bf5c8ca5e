//go:build !s390x

package plain

import (
	"slices"
	"testing"

	"github.com/parquet-go/bitpack/unsafecast"
)

// TestDecodeInPlace: a page decoded into its own buffer keeps its values,
// and one decoded into another buffer is copied, whatever dst held.
func TestDecodeInPlace(t *testing.T) {
	e := &Encoding{}
	want := []int32{1, -2, 3, 1 << 30}
	page := unsafecast.Slice[byte](slices.Clone(want))
	got, err := e.DecodeInt32(unsafecast.Slice[int32](page), page)
	if err != nil || !slices.Equal(got, want) || &got[0] != &unsafecast.Slice[int32](page)[0] {
		t.Fatalf("in place: %v %v", got, err)
	}
	other := []int32{9, 9}
	got, err = e.DecodeInt32(other, page)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("into another buffer: %v %v", got, err)
	}
	short := make([]int32, 2, 2) // too small: a new slice
	if got, _ = e.DecodeInt32(short, page); !slices.Equal(got, want) {
		t.Fatalf("into a short buffer: %v", got)
	}
	d := []float64{0.5, -1}
	dp := unsafecast.Slice[byte](d)
	if got, _ := e.DecodeDouble(d[:0], dp); !slices.Equal(got, []float64{0.5, -1}) {
		t.Fatalf("doubles in place: %v", got)
	}
}
