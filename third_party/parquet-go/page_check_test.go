package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/rle"
)

// TestCheckValueCount: what a page's encoded values claim is held to the
// page's count before the decoders allocate for it.
func TestCheckValueCount(t *testing.T) {
	run := binary.AppendUvarint(nil, (1<<31-1)<<1) // an RLE run of 2^31-1 values
	indices := []byte{2, 10 << 1, 3}               // bit width 2, a run of 10 threes
	// repeated is n equal strings of size bytes, DELTA_BYTE_ARRAY-encoded.
	repeated := func(n, size int) []byte {
		var data []byte
		offs := []uint32{0}
		for range n {
			data = append(data, bytes.Repeat([]byte{'x'}, size)...)
			offs = append(offs, uint32(len(data)))
		}
		src, _ := (&delta.ByteArrayEncoding{}).EncodeByteArray(nil, data, offs)
		return src
	}
	bools := binary.LittleEndian.AppendUint32(nil, 2)
	bools = append(bools, 10<<1, 1) // a run of 10 trues
	for _, c := range []struct {
		name  string
		kind  Kind
		enc   encoding.Encoding
		n     int
		data  []byte
		wrong bool
	}{
		{"indices", ByteArray, &RLEDictionary, 10, indices, false},
		{"indices past the page", ByteArray, &RLEDictionary, 10, append(indices, append(run, 1)...), true},
		{"indices short of the page", ByteArray, &RLEDictionary, 11, indices, true},
		{"booleans", Boolean, &RLE, 10, bools, false},
		{"booleans past the page", Boolean, &RLE, 10, append(binary.LittleEndian.AppendUint32(nil, uint32(len(run)+1)), append(run, 1)...), true},
		{"plain strings", ByteArray, &Plain, 2, []byte{1, 0, 0, 0, 'a', 0, 0, 0, 0}, false},
		{"plain strings past the bytes", ByteArray, &Plain, 1 << 30, []byte{1, 0, 0, 0, 'a'}, true},
		{"int32 runs past the page", Int32, &RLE, 10, append(run, 1), true},
		{"delta strings", ByteArray, &DeltaByteArray, 100, repeated(100, 1000), false},
		{"delta strings past 255 times their bytes", ByteArray, &DeltaByteArray, 3000, repeated(3000, 1000), true},
	} {
		err := checkValueCount(c.kind, c.enc, c.n, c.data)
		if (err != nil) != c.wrong || err != nil && !errors.Is(err, ErrCorrupted) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if err := checkLevelCount(&rle.Encoding{BitWidth: 1}, 5, append([]byte{5 << 1, 1}, append(run, 1)...)); err == nil {
		t.Error("levels with a run past the page: no error")
	}
}
