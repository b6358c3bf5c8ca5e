// Package strdict owns the hash tables with which the CSV and JSON-lines
// parsers dictionary-encode strings as they read them. A table maps each
// distinct string to its id, a dense index (0, 1, ...) that the caller
// assigns; the caller keeps the strings themselves, as the offsets and bytes
// of an Arrow string array. ShortTable keys strings of up to MaxShort bytes
// by the word they pack into (Pack), comparing no bytes; Table keys longer
// ones by Hash and compares bytes only when the full hashes match.
//
// Must never import: anything outside the standard library.
package strdict

import (
	"encoding/binary"
	"math/bits"
)

// MaxShort is the longest string keyed by its own bytes: seven bytes and
// the length fill a 64-bit word.
const MaxShort = 7

// Pack packs a string of at most MaxShort bytes and its length in a word,
// the string's key in a ShortTable.
func Pack(v []byte) uint64 {
	var w uint64
	if cap(v) >= 8 { // v is inside a longer buffer: load a word at once
		w = binary.LittleEndian.Uint64(v[:8]) & (1<<(8*len(v)) - 1)
	} else {
		var b [8]byte
		copy(b[:], v)
		w = binary.LittleEndian.Uint64(b[:])
	}
	return w | uint64(len(v))<<56
}

// ShortTable maps packed short strings to ids: open addressing on the word
// itself, no bytes compared. The zero value is an empty table.
type ShortTable struct {
	keys  []uint64
	ids   []int32 // id+1; 0 is empty
	shift uint
	n     int
}

// Find returns key's id, or -1 when the table does not hold it.
func (t *ShortTable) Find(key uint64) int32 {
	if t.n == 0 {
		return -1
	}
	mask := uint64(len(t.ids) - 1)
	for s := (key * 0x9E3779B97F4A7C15) >> t.shift; ; s = (s + 1) & mask {
		switch id := t.ids[s]; {
		case id == 0:
			return -1
		case t.keys[s] == key:
			return id - 1
		}
	}
}

// Insert adds key, which the table must not hold, with its id.
func (t *ShortTable) Insert(key uint64, id int32) {
	if 2*(t.n+1) > len(t.ids) {
		old := *t
		size := max(64, 2*len(old.ids))
		*t = ShortTable{keys: make([]uint64, size), ids: make([]int32, size), shift: uint(64 - bits.TrailingZeros(uint(size)))}
		for i, oid := range old.ids {
			if oid != 0 {
				t.Insert(old.keys[i], oid-1)
			}
		}
	}
	mask := uint64(len(t.ids) - 1)
	s := (key * 0x9E3779B97F4A7C15) >> t.shift
	for t.ids[s] != 0 {
		s = (s + 1) & mask
	}
	t.keys[s], t.ids[s] = key, id+1
	t.n++
}

// Table finds a string's id by its hash with open addressing; a slot holds
// the hash and the id together, one cache line per probe, and bytes are
// compared only when the full 64-bit hashes match. Make one with NewTable.
type Table struct {
	slots []slot
	n     int
}

type slot struct {
	hash uint64
	id   int32 // id+1; 0 is empty
}

// NewTable makes an empty table of size slots, a power of two; it grows as
// it fills.
func NewTable(size int) Table { return Table{slots: make([]slot, size)} }

// Find returns the id of f, whose Hash is h, or -1 when the table does not
// hold it. Id i's string is data[offs[i]:offs[i+1]].
func (t *Table) Find(h uint64, f []byte, offs []int32, data []byte) int32 {
	mask := uint64(len(t.slots) - 1)
	for s := h & mask; ; s = (s + 1) & mask {
		sl := &t.slots[s]
		if sl.id == 0 {
			return -1
		}
		if sl.hash == h {
			id := sl.id - 1
			if string(data[offs[id]:offs[id+1]]) == string(f) {
				return id
			}
		}
	}
}

// Insert adds the id of a string the table does not hold, whose Hash is h.
func (t *Table) Insert(h uint64, id int32) {
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		*t = NewTable(2 * len(old))
		for _, sl := range old {
			if sl.id != 0 {
				t.Insert(sl.hash, sl.id-1)
			}
		}
	}
	mask := uint64(len(t.slots) - 1)
	s := h & mask
	for t.slots[s].id != 0 {
		s = (s + 1) & mask
	}
	t.slots[s] = slot{hash: h, id: id + 1}
	t.n++
}

// Hash is a fast hash for short fields: a word or two read at once, mixed
// by a 128-bit multiply.
func Hash(b []byte) uint64 {
	const k0, k1 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
	n := len(b)
	var a, c uint64
	switch {
	case n > 16:
		h := uint64(n) ^ k0
		for i := 0; i+8 <= n-8; i += 8 { // every word but the last 8 bytes
			h = mix(h^binary.LittleEndian.Uint64(b[i:]), k1)
		}
		a, c = h, binary.LittleEndian.Uint64(b[n-8:])
	case n >= 8:
		a, c = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	case n >= 4:
		a, c = uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[n-4:]))
	case n > 0:
		a = uint64(b[0])<<16 | uint64(b[n>>1])<<8 | uint64(b[n-1])
	}
	return mix(a^k1, c^uint64(n)^k0)
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
