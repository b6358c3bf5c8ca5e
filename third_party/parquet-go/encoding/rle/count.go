package rle

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/parquet-go/bitpack"
)

// Count returns how many values the hybrid RLE/bit-packed runs of src hold
// at bitWidth, reading only the runs' headers. A run's length is not
// bounded by the encoding (a few bytes can claim two billion values), so a
// decoder that knows how many values a page has checks its runs against
// that with Count before it allocates for them. Count fails as soon as the
// runs pass limit values, or where a run is cut short.
func Count(src []byte, bitWidth uint, limit int) (int, error) {
	if bitWidth > 32 {
		return 0, errDecodeInvalidBitWidth("INT32", bitWidth)
	}
	total := 0
	for i := 0; i < len(src); {
		u, n := binary.Uvarint(src[i:])
		if n <= 0 {
			return total, fmt.Errorf("decoding run-length block header: %w", io.ErrUnexpectedEOF)
		}
		i += n
		count, size := u>>1, uint64(bitpack.ByteCount(bitWidth)) // a run: its value
		if u&1 != 0 {                                            // bit-packed: groups of 8 values
			count *= 8
			size = count * uint64(bitWidth) / 8
		}
		if count > uint64(limit-total) {
			return total, fmt.Errorf("runs of more than %d values", limit)
		}
		if size > uint64(len(src)-i) {
			return total, fmt.Errorf("decoding run of %d values: %w", count, io.ErrUnexpectedEOF)
		}
		total += int(count)
		i += int(size)
	}
	return total, nil
}
