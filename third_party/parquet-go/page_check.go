package parquet

import (
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/format"
)

// levelPadding is how many values past a page's count its runs may hold:
// a bit-packed run holds a multiple of 8 values, the last padded.
const levelPadding = 7

// checkLevelCount holds the runs of a page's repetition or definition
// levels to the page's numValues before they are decoded: the RLE decoder
// appends every run it reads, and a run of a few bytes can claim two
// billion levels.
func checkLevelCount(enc encoding.Encoding, numValues int, data []byte) error {
	e, ok := enc.(*rle.Encoding)
	if !ok {
		return nil // bit-packed levels: their count follows from their bytes
	}
	n, err := rle.Count(data, uint(e.BitWidth), numValues+levelPadding)
	switch {
	case err != nil:
		return fmt.Errorf("decoding levels of a page of %d values: %w: %w", numValues, err, ErrCorrupted)
	case n < numValues:
		return fmt.Errorf("decoding level expected %d values but got only %d: %w", numValues, n, ErrCorrupted)
	}
	return nil
}

// checkValueCount holds the values a page's encoded data says it has to
// the numValues its header and levels give, before anything is allocated
// for them: runs of dictionary indices and of RLE booleans, and the
// headers of delta encodings, are not bounded by their bytes; plain
// strings take four bytes each at least.
func checkValueCount(kind Kind, enc encoding.Encoding, numValues int, data []byte) error {
	var n int
	var err error
	switch {
	case isDictionaryEncoding(enc):
		if len(data) == 0 {
			if numValues == 0 {
				return nil
			}
			return fmt.Errorf("dictionary indices of %d values in an empty page: %w", numValues, ErrCorrupted)
		}
		if n, err = rle.Count(data[1:], uint(data[0]), numValues+levelPadding); err == nil && n < numValues {
			err = fmt.Errorf("%d dictionary indices for %d values", n, numValues)
		}
	case enc.Encoding() == format.RLE && kind == Boolean:
		if len(data) < 4 || int(binary.LittleEndian.Uint32(data)) > len(data)-4 {
			return nil // the decoder says what is short
		}
		runs := data[4 : 4+binary.LittleEndian.Uint32(data)]
		if n, err = rle.Count(runs, 1, numValues+levelPadding); err == nil && n < numValues {
			err = fmt.Errorf("%d booleans for %d values", n, numValues)
		}
	case enc.Encoding() == format.DeltaBinaryPacked, enc.Encoding() == format.DeltaLengthByteArray, enc.Encoding() == format.DeltaByteArray:
		if len(data) == 0 && numValues == 0 {
			return nil
		}
		if n, err = delta.Count(data); err == nil && n != numValues {
			err = fmt.Errorf("a delta header of %d values in a page of %d", n, numValues)
		}
	case enc.Encoding() == format.Plain && kind == ByteArray:
		if int64(numValues)*4 > int64(len(data)) {
			err = fmt.Errorf("%d strings in %d bytes", numValues, len(data))
		}
	}
	if err != nil {
		return fmt.Errorf("decoding %s values: %w: %w", enc.Encoding(), err, ErrCorrupted)
	}
	return nil
}
