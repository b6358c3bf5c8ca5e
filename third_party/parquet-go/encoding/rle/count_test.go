package rle

import (
	"encoding/binary"
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	levels := []uint8{1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1}
	enc, err := (&Encoding{BitWidth: 1}).EncodeLevels(nil, levels)
	if err != nil {
		t.Fatal(err)
	}
	huge := append(binary.AppendUvarint(nil, (1<<31-1)<<1), 1) // a run of 2^31-1 ones
	for _, c := range []struct {
		name  string
		src   []byte
		limit int
		want  int
		err   string
	}{
		{"encoded", enc, 20, len(levels), ""},
		{"bit-packed padding", append([]byte{3}, 0xff), 8, 8, ""}, // one group of 8
		{"a run past the limit", append(enc, huge...), 20, len(levels), "runs of more than 20 values"},
		{"a run cut short", []byte{3}, 20, 0, "unexpected EOF"},
		{"a header cut short", []byte{0x80}, 20, 0, "unexpected EOF"},
	} {
		got, err := Count(c.src, 1, c.limit)
		if c.err == "" && (err != nil || got != c.want) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: Count = %d, %v; want %d, %q", c.name, got, err, c.want, c.err)
		}
	}
}
