package csv

// specialWords sets bits[i] to the mask of the bytes of data[64*i:64*i+64]
// that equal the delimiter (each byte of delims), a line break (each byte
// of nl, of cr) or the quote; data holds at least 64*len(bits) bytes. SSE2, which every amd64
// has: sixteen bytes compared at once.
//
//go:noescape
func specialWords(data []byte, delims, nl, cr uint64, bits []uint64)
