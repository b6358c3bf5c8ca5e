package lz4

import (
	"strings"
	"testing"
)

// TestDecodeDamaged: a damaged block fails once the buffer passes what any
// block could expand to (the decoder doubled its buffer without end).
func TestDecodeDamaged(t *testing.T) {
	var c Codec
	damaged := []byte{0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x02, 0x03}
	if _, err := c.Decode(nil, damaged); err == nil || !strings.Contains(err.Error(), "damaged block") {
		t.Errorf("Decode of a damaged block: %v", err)
	}
	src, err := c.Encode(nil, []byte(strings.Repeat("dusk ", 10000)))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := c.Decode(nil, src); err != nil || len(out) != 50000 {
		t.Errorf("Decode of a block that expands %d times: %d bytes, %v", 50000/len(src), len(out), err)
	}
}
