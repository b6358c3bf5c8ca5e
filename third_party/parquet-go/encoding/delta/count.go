package delta

import "fmt"

// Count returns the number of values the DELTA_BINARY_PACKED header at the
// start of src says its stream holds. Decoders allocate for that number
// before decoding, and a header of a few bytes can claim two billion
// values in blocks of zero-width deltas, so a decoder that knows how many
// values a page has checks the header against it first (for
// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY, the first stream's).
func Count(src []byte) (int, error) {
	_, _, total, _, _, err := decodeBinaryPackedHeader(src)
	return total, err
}

// checkSuffixes holds the suffix lengths' header that starts src to the
// count of prefix lengths, before the suffixes are decoded: the two
// streams hold a value each per string.
func checkSuffixes(src []byte, prefixes int) error {
	n, err := Count(src)
	if err != nil {
		return err
	}
	if n != prefixes {
		return fmt.Errorf("%d suffix lengths for %d prefix lengths", n, prefixes)
	}
	return nil
}
