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
