package delta

import (
	"encoding/binary"
	"strings"
	"testing"
)

func TestCountAndSuffixes(t *testing.T) {
	src, err := (&BinaryPackedEncoding{}).EncodeInt64(nil, []int64{1, 5, 9, 2, 7})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := Count(src); n != 5 || err != nil {
		t.Errorf("Count = %d, %v; want 5", n, err)
	}
	// A header claiming 2^31-1 values in a zero-width block: the suffix
	// lengths must number the prefixes before they are decoded.
	bomb := binary.AppendVarint(binary.AppendUvarint(binary.AppendUvarint(binary.AppendUvarint(nil, 128), 4), 1<<31-1), 0)
	if err := checkSuffixes(bomb, 3); err == nil || !strings.Contains(err.Error(), "2147483647 suffix lengths for 3 prefix lengths") {
		t.Errorf("checkSuffixes: %v", err)
	}
	prefixes, _ := (&BinaryPackedEncoding{}).EncodeInt32(nil, []int32{0, 1, 2})
	_, _, err = (&ByteArrayEncoding{}).DecodeByteArray(nil, append(prefixes, bomb...), nil)
	if err == nil || !strings.Contains(err.Error(), "suffix lengths") {
		t.Errorf("DecodeByteArray of a suffix header past the prefixes: %v", err)
	}
}

// TestDecodedSize holds a DELTA_BYTE_ARRAY stream's decoded size to its
// lengths checked as the decoder checks them: a prefix longer than the
// string before it, summed on trust, sized a 2 GB buffer for 111 bytes.
func TestDecodedSize(t *testing.T) {
	enc := &ByteArrayEncoding{}
	values := []string{"apple", "applesauce", "apricot", "", "banana"}
	var data []byte
	var offs []uint32
	for _, v := range values {
		offs = append(offs, uint32(len(data)))
		data = append(data, v...)
	}
	offs = append(offs, uint32(len(data)))
	src, err := enc.EncodeByteArray(nil, data, offs)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := DecodedSize(src); n != len(data) || err != nil {
		t.Errorf("DecodedSize = %d, %v; want %d", n, err, len(data))
	}
	if n := enc.EstimateDecodeByteArraySize(src); n != len(data) {
		t.Errorf("EstimateDecodeByteArraySize = %d, want %d", n, len(data))
	}
	prefixes, _ := (&BinaryPackedEncoding{}).EncodeInt32(nil, []int32{0, 2_000_000_000, 1})
	suffixes, _ := (&BinaryPackedEncoding{}).EncodeInt32(nil, []int32{1, 1, 1})
	damaged := append(append(prefixes, suffixes...), "abc"...)
	if _, err := DecodedSize(damaged); err == nil {
		t.Error("DecodedSize took a prefix of 2e9 bytes after a string of 1")
	}
	if n := enc.EstimateDecodeByteArraySize(damaged); n != 0 {
		t.Errorf("EstimateDecodeByteArraySize of a damaged stream = %d, want 0", n)
	}
}
