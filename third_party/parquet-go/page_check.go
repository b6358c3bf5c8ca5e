package parquet

import (
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/format"
)

// runLimit is how many values the runs of a page of numValues values may
// hold: writers pad past the page's count (a bit-packed run holds a
// multiple of 8 values, and DuckDB writes 517 levels for a page of 301),
// as many as the bytes can hold bit-packed; a run-length run, which holds
// any count in a few bytes, may not go further.
func runLimit(numValues int, data []byte) int {
	return numValues + 7 + 8*len(data)
}

// checkLevelCount holds the runs of a page's repetition or definition
// levels to the page's numValues before they are decoded: the RLE decoder
// appends every run it reads, and a run of a few bytes can claim two
// billion levels.
func checkLevelCount(enc encoding.Encoding, numValues int, data []byte) error {
	e, ok := enc.(*rle.Encoding)
	if !ok {
		return nil // bit-packed levels: their count follows from their bytes
	}
	n, err := rle.Count(data, uint(e.BitWidth), runLimit(numValues, data))
	switch {
	case err != nil:
		return fmt.Errorf("decoding levels of a page of %d values: %w: %w", numValues, err, ErrCorrupted)
	case n < numValues:
		return fmt.Errorf("decoding level expected %d values but got only %d: %w", numValues, n, ErrCorrupted)
	}
	return nil
}

// maxExpansion is how many times its bytes a page of strings that repeat
// their neighbours' prefixes may decode to (LZ4's own bound).
const maxExpansion = 255

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
		if n, err = rle.Count(data[1:], uint(data[0]), runLimit(numValues, data)); err == nil && n < numValues {
			err = fmt.Errorf("%d dictionary indices for %d values", n, numValues)
		}
	case enc.Encoding() == format.RLE && kind == Boolean:
		if len(data) < 4 || int(binary.LittleEndian.Uint32(data)) > len(data)-4 {
			return nil // the decoder says what is short
		}
		runs := data[4 : 4+binary.LittleEndian.Uint32(data)]
		if n, err = rle.Count(runs, 1, runLimit(numValues, runs)); err == nil && n < numValues {
			err = fmt.Errorf("%d booleans for %d values", n, numValues)
		}
	case enc.Encoding() == format.RLE:
		// Other values than booleans in RLE runs: each run may claim
		// two billion values in a few bytes too.
		if e, ok := enc.(*rle.Encoding); ok {
			if n, err = rle.Count(data, uint(e.BitWidth), runLimit(numValues, data)); err == nil && n < numValues {
				err = fmt.Errorf("%d values in runs for %d", n, numValues)
			}
		}
	case enc.Encoding() == format.DeltaBinaryPacked, enc.Encoding() == format.DeltaLengthByteArray, enc.Encoding() == format.DeltaByteArray:
		if len(data) == 0 && numValues == 0 {
			return nil
		}
		if n, err = delta.Count(data); err == nil && n != numValues {
			err = fmt.Errorf("a delta header of %d values in a page of %d", n, numValues)
		}
		if err == nil && enc.Encoding() == format.DeltaByteArray && kind == ByteArray {
			// Each string may repeat the one before: valid lengths can
			// still make a small page decode to gigabytes.
			if size, serr := delta.DecodedSize(data); serr == nil && size > maxExpansion*len(data)+1<<20 {
				err = fmt.Errorf("%d bytes of strings decode to %d", len(data), size)
			}
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
