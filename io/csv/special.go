package csv

import (
	"encoding/binary"
)

// The parser finds where fields end from a bitmap of the data's special
// bytes (the delimiter, line breaks and the quote), a bit per byte, made a
// window of words at a time: a field's end is then the next set bit, found
// without a loop over its bytes, whose unpredictable length cost a
// mispredicted branch per field.

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// windowWords is how many words of the bitmap the parser holds: 32 KiB of
// data, 4 KiB of bits, which stay in the L1 cache.
const windowWords = 512

// specials is the bitmap of a window of the data: word i covers the bytes
// from 64*(from+i).
type specials struct {
	words  [windowWords]uint64
	n      int // words made
	from   int
	delims uint64 // the delimiter in every byte
	nl, cr uint64 // the line ends in every byte (the terminator twice, when one is fixed)
	tail   [64]byte
}

// bitsFrom returns the bits of the special bytes at or after i in i's
// word, and the index of the word's first byte; past the data's end, a
// single bit for len(data), which ends the last field of data that ends
// without a line break.
func (p *parser) bitsFrom(i int) (uint64, int) {
	if i >= len(p.data) {
		return 1, len(p.data)
	}
	s := &p.specials
	w := i >> 6
	if uint(w-s.from) >= uint(s.n) {
		p.window(w)
	}
	return s.words[w-s.from] &^ (1<<(i&63) - 1), w << 6
}

// nextWord returns the bits of the word after the one at byte wb, and its
// first byte's index (see bitsFrom).
func (p *parser) nextWord(wb int) (uint64, int) { return p.bitsFrom(wb + 64) }

// window makes the bitmap of the words from word from on.
func (p *parser) window(from int) {
	s, d := &p.specials, p.data
	s.from = from
	full := min(len(d)>>6-from, windowWords)
	specialWords(d[from<<6:], s.delims, s.nl, s.cr, s.words[:full])
	s.n = full
	if full < windowWords && len(d)&63 != 0 { // the last bytes, padded with zeros
		rest := d[(from+full)<<6:]
		s.tail = [64]byte{}
		copy(s.tail[:], rest)
		specialWords(s.tail[:], s.delims, s.nl, s.cr, s.words[full:full+1])
		s.words[full] &= 1<<len(rest) - 1 // a zero delimiter matches the padding
		s.n++
	}
}

// specialWordsGo is specialWords in Go, eight bytes at a time, for the
// architectures without an assembly version.
func specialWordsGo(data []byte, delims, nl, cr uint64, words []uint64) {
	for i := range words {
		var m uint64
		for j := 0; j < 8; j++ {
			w := binary.LittleEndian.Uint64(data[64*i+8*j:])
			z := zeroBytes(w^delims) | zeroBytes(w^nl) | zeroBytes(w^cr) | zeroBytes(w^'"'*lowBits)
			m |= ((z >> 7) * 0x0102040810204080 >> 56) << (8 * j)
		}
		words[i] = m
	}
}

// zeroBytes sets the top bit of each byte of x that is zero, exactly: no
// carry crosses bytes.
func zeroBytes(x uint64) uint64 {
	return ^((x&^highBits + ^uint64(highBits)) | x) & highBits
}
