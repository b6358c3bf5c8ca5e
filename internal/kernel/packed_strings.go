package kernel

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"sort"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// PackedStrings is the type of a column of strings of at most
// maxPackedString bytes, each packed into two words as grouping packs it
// (packedKeys): an aggregation's shuffle moves its string keys so, 16
// bytes a row written in one pass where plain strings take two (their
// sizes, then their bytes) into twice as many streams, and the combine
// groups them from their words without packing them again. It is an Arrow
// extension type over a fixed 16-byte binary, so that pieces keep it
// through IPC (transfers between workers, spills); UnpackStrings turns a
// column back into plain strings.
var PackedStrings arrow.ExtensionType = &packedStringsType{arrow.ExtensionBase{Storage: &arrow.FixedSizeBinaryType{ByteWidth: 16}}}

func init() {
	if err := arrow.RegisterExtensionType(PackedStrings); err != nil {
		panic(err)
	}
}

type packedStringsType struct{ arrow.ExtensionBase }

func (*packedStringsType) ArrayType() reflect.Type { return reflect.TypeOf(packedStringsArray{}) }
func (*packedStringsType) ExtensionName() string   { return "dusk.packed_strings" }
func (*packedStringsType) Serialize() string       { return "" }
func (*packedStringsType) BitWidth() int           { return 128 } // a fixed width: ByteWidth, Take, Concat
func (*packedStringsType) Bytes() int              { return 16 }

func (t *packedStringsType) ExtensionEquals(o arrow.ExtensionType) bool {
	return o.ExtensionName() == t.ExtensionName()
}

func (*packedStringsType) Deserialize(storage arrow.DataType, _ string) (arrow.ExtensionType, error) {
	if fb, ok := storage.(*arrow.FixedSizeBinaryType); !ok || fb.ByteWidth != 16 {
		return nil, fmt.Errorf("packed strings: storage %s, not fixed_size_binary[16]", storage)
	}
	return PackedStrings, nil
}

type packedStringsArray struct{ array.ExtensionArrayBase }

// IsPackedStrings reports whether a is a column of PackedStrings.
func IsPackedStrings(a arrow.Array) bool {
	_, ok := a.(*packedStringsArray)
	return ok
}

// packedPairs are a PackedStrings column's rows, two words each.
func packedPairs(a arrow.Array) [][2]uint64 { return FixedValues[[2]uint64](a) }

// asPairs views words (of an even number) as pairs, without a copy.
func asPairs(words []uint64) [][2]uint64 {
	return unsafe.Slice((*[2]uint64)(unsafe.Pointer(unsafe.SliceData(words))), len(words)/2)
}

// asWords views pairs as their words, without a copy.
func asWords(pairs [][2]uint64) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(pairs))), 2*len(pairs))
}

// packPairs packs each string of offs and data, none longer than
// maxPackedString, into dst's two words, as packString does: with two
// masked loads where 16 bytes from its start are there to load (all but
// the last few strings).
func packPairs(offs []int32, data []byte, dst [][2]uint64) {
	n := len(offs) - 1
	fast := sort.Search(n, func(i int) bool { return int(offs[i])+16 > len(data) })
	dst = dst[:n]
	for i := range fast {
		s, e := int(offs[i]), int(offs[i+1])
		m := &packMasks[e-s]
		dst[i] = [2]uint64{binary.LittleEndian.Uint64(data[s:]) & m[0], binary.LittleEndian.Uint64(data[s+8:])&m[1] | uint64(e-s)<<56}
	}
	for i := fast; i < n; i++ {
		dst[i][0], dst[i][1] = packString(data[offs[i]:offs[i+1]])
	}
}

// packable reports whether a is a column of plain strings that packs: no
// nulls (a null's words would be anything) and none longer than
// maxPackedString.
func packable(a arrow.Array) bool {
	s, ok := a.(*array.String)
	return ok && s.NullN() == 0 && longestString(s) <= maxPackedString
}

// scatterPackedStrings splits plain strings by parts as scatterStrings
// does, packed into two words each (one stream an output, where strings
// take two, in one pass where they take two). The strings are packed a
// chunk at a time into a buffer the L1 cache holds and scattered from it:
// packed all at once, the words went out to memory and back.
func scatterPackedStrings(offs []int32, data []byte, parts []int32, counts []int) [][][2]uint64 {
	out := scatterOutputs[[2]uint64](counts)
	next := make([]int, len(counts))
	var buf [1024][2]uint64
	for lo := 0; lo < len(parts); lo += len(buf) {
		hi := min(lo+len(buf), len(parts))
		packPairs(offs[lo:hi+1], data, buf[:hi-lo])
		scatterInto(buf[:hi-lo], parts[lo:hi], out, next)
	}
	return out
}

// UnpackStrings returns a as plain strings, a itself retained where it is
// not PackedStrings; the caller releases it.
func UnpackStrings(a arrow.Array) arrow.Array {
	if !IsPackedStrings(a) {
		a.Retain()
		return a
	}
	return stringsOfWords(asWords(packedPairs(a)), 2, 0)
}

// UnpackAll returns cols with every PackedStrings column unpacked (the
// others retained), for the caller to release.
func UnpackAll(cols []arrow.Array) []arrow.Array {
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		out[i] = UnpackStrings(c)
	}
	return out
}

// stringsOfWords rebuilds the strings packed at word at of each w-word
// row of words.
func stringsOfWords(words []uint64, w, at int) arrow.Array {
	rows := len(words) / w
	offs := make([]int32, rows+1)
	for g := range rows {
		offs[g+1] = offs[g] + int32(words[g*w+at+1]>>56)
	}
	data := make([]byte, int(offs[rows])+16) // room to store whole words
	for g := range rows {
		binary.LittleEndian.PutUint64(data[offs[g]:], words[g*w+at])
		binary.LittleEndian.PutUint64(data[offs[g]+8:], words[g*w+at+1])
	}
	// Each string's words were stored whole, the next one's over the
	// last's spare bytes; the last one's spill past its end.
	return NewString(offs, data[:offs[rows]], nil)
}

// packedOfWords gathers the strings packed at word at of each w-word row
// of words as a PackedStrings column; the words themselves where they are
// nothing else.
func packedOfWords(words []uint64, w, at int) arrow.Array {
	rows := len(words) / w
	if w == 2 {
		return NewFixed(PackedStrings, asPairs(words), nil)
	}
	pairs := make([][2]uint64, rows)
	for g := range pairs {
		pairs[g] = [2]uint64{words[g*w+at], words[g*w+at+1]}
	}
	return NewFixed(PackedStrings, pairs, nil)
}
