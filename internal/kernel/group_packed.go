package kernel

import (
	"encoding/binary"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// packedKeys holds each row's key values packed into w words, row i's in
// words[i*w : i*w+w], so that grouping compares a row with a group by a
// few word compares in memory it reads in order, where keyEq fetches both
// rows' values (a string's offsets, then its bytes) from wherever their
// columns keep them: a cache miss or two per probe once the rows are many.
// Equal keys pack to equal words and unequal ones to unequal words; rows
// with a null key pack to anything (grouping skips them).
type packedKeys struct {
	w     int // 0: the keys do not pack
	words []uint64
}

// maxPackedWords is the most words a row's keys pack into: past it the
// copy costs more than the comparisons it saves.
const maxPackedWords = 4

// maxPackedString is the longest string that packs: its bytes fill up to
// 15 bytes of two words, and its length the last.
const maxPackedString = 15

// packKeys packs cols (as WidenAll leaves them): an integer, a float (as
// floatBits, so -0 packs as 0 and every NaN alike) or a boolean into a
// word, a plain string of at most maxPackedString bytes into two. It
// returns w 0 for keys of more words, longer strings or a dictionary: a
// dictionary's rows compare by index where they share it, and packing
// would cost a pass over every entry however few rows there are (the
// 4,096 rows that aggPartialOp samples of a partition whose id3 has
// 100,000 entries).
func packKeys(cols []arrow.Array) packedKeys {
	w := 0
	for _, c := range cols {
		if _, dict := c.(*array.Dictionary); dict {
			return packedKeys{}
		}
		w += packedWidth(c)
	}
	if len(cols) == 0 || w > maxPackedWords {
		return packedKeys{}
	}
	for _, c := range cols { // after the width check: this one reads offsets
		if s, ok := c.(*array.String); ok && longestString(s) > maxPackedString {
			return packedKeys{}
		}
	}
	n := cols[0].Len()
	k := packedKeys{w: w, words: make([]uint64, n*w)}
	at := 0
	for _, c := range cols {
		k.pack(c, at)
		at += packedWidth(c)
	}
	return k
}

// packedWidth is how many words a value of c packs into.
func packedWidth(c arrow.Array) int {
	switch c.(type) {
	case *array.String, *packedStringsArray:
		return 2
	}
	return 1
}

// longestString is the length of s's longest string.
func longestString(s *array.String) int {
	offs, _ := stringParts(s)
	longest := int32(0)
	for i := 1; i < len(offs); i++ {
		longest = max(longest, offs[i]-offs[i-1])
	}
	return int(longest)
}

// pack writes c's words at word at of each row.
func (k *packedKeys) pack(c arrow.Array, at int) {
	w, words := k.w, k.words
	switch a := c.(type) {
	case *array.Int64:
		for i, v := range a.Int64Values() {
			words[i*w+at] = uint64(v)
		}
	case *array.Float64:
		for i, v := range a.Float64Values() {
			words[i*w+at] = floatBits(v)
		}
	case *array.Boolean:
		for i := range a.Len() {
			words[i*w+at] = uint64(b2u(a.Value(i)))
		}
	case *array.String:
		offs, data := stringParts(a)
		if w == 2 {
			packPairs(offs, data, asPairs(words))
			break
		}
		pairs := make([][2]uint64, a.Len())
		packPairs(offs, data, pairs)
		for i, p := range pairs {
			words[i*w+at], words[i*w+at+1] = p[0], p[1]
		}
	case *packedStringsArray:
		pairs := packedPairs(a)
		if w == 2 { // the words as they lie
			copy(words, asWords(pairs))
			break
		}
		for i, p := range pairs {
			words[i*w+at], words[i*w+at+1] = p[0], p[1]
		}
	}
}

// packMasks[l] keeps a string of l bytes' bytes of its two words.
var packMasks = func() (m [maxPackedString + 1][2]uint64) {
	for l := range m {
		for b := range l {
			m[l][b/8] |= 0xff << (8 * (b % 8))
		}
	}
	return m
}()

// hashes hashes each row's packed words: equal keys pack to equal words,
// so they hash equally, with no second pass over the columns.
func (k packedKeys) hashes() []uint64 {
	w, words := k.w, k.words
	out := make([]uint64, len(words)/w)
	if w == 2 { // a string alone, as the loop below, without its loop
		for i := range out {
			pair := words[2*i : 2*i+2 : 2*i+2]
			out[i] = mix64(pair[0]*0x9e3779b97f4a7c15 ^ pair[1])
		}
		return out
	}
	for i := range out {
		acc := uint64(0)
		for _, x := range words[i*w : i*w+w] {
			acc = acc*0x9e3779b97f4a7c15 ^ x
		}
		out[i] = mix64(acc)
	}
	return out
}

// packString packs b (at most maxPackedString bytes) into two words: its
// bytes, zero-padded, with its length in the top byte of the second.
func packString(b []byte) (uint64, uint64) {
	var buf [16]byte
	copy(buf[:maxPackedString], b)
	buf[15] = byte(len(b))
	return binary.LittleEndian.Uint64(buf[:8]), binary.LittleEndian.Uint64(buf[8:])
}

// sameWords reports whether two rows' words are equal.
func sameWords(a, b []uint64) bool {
	for j := range a {
		if a[j] != b[j] {
			return false
		}
	}
	return true
}
