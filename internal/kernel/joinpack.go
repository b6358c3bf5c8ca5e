package kernel

import (
	"math/bits"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// keyPacking packs a join's several integer key columns into one int64
// key, each column's offset from its least build value in bits of its
// own, so that the table is the single int64 key's (radix parts, a sift
// filter, exact keys in the slots) instead of a table of row hashes whose
// every match compares the build row's values, a cache miss a column
// (TPC-H q9 joins lineitem with partsupp on part and supplier).
type keyPacking struct {
	lo    []int64  // each column's least build value
	span  []uint64 // its greatest build value less lo
	shift []uint   // where its offset goes in the packed key
}

// packingOf returns the packing of build, widened key columns, or nil
// where they do not pack: fewer than two, not all integers, a null (null
// keys match each other, which the hashed table keeps) or ranges that
// need more than 63 bits together.
func packingOf(build []arrow.Array) *keyPacking {
	if len(build) < 2 {
		return nil
	}
	p := &keyPacking{lo: make([]int64, len(build)), span: make([]uint64, len(build)), shift: make([]uint, len(build))}
	used := uint(0)
	for c, col := range build {
		a, ok := col.(*array.Int64)
		if !ok || a.NullN() > 0 {
			return nil
		}
		vals := a.Int64Values()
		if len(vals) == 0 {
			return nil
		}
		lo, hi := vals[0], vals[0]
		for _, v := range vals {
			lo, hi = min(lo, v), max(hi, v)
		}
		p.lo[c], p.span[c], p.shift[c] = lo, uint64(hi)-uint64(lo), used
		used += uint(bits.Len64(p.span[c]))
		if used > 63 {
			return nil
		}
	}
	return p
}

// pack packs key columns (widened, of the kinds packingOf took) into one
// int64 column the caller releases. A row with a null, or with a value
// outside its column's build range, which no build row holds, is null:
// the build has no null key, so it matches nothing.
func (p *keyPacking) pack(cols []arrow.Array) *array.Int64 {
	n := cols[0].Len()
	out := make([]int64, n)
	var valid []byte // nil while every row packs
	drop := func(i int) {
		if valid == nil {
			valid = make([]byte, (n+7)/8)
			for j := range valid {
				valid[j] = 0xff
			}
		}
		valid[i>>3] &^= 1 << (i & 7)
	}
	for c, col := range cols {
		a := col.(*array.Int64)
		lo, span, shift := p.lo[c], p.span[c], p.shift[c]
		for i, v := range a.Int64Values() {
			d := uint64(v) - uint64(lo)
			if d > span {
				drop(i)
				continue
			}
			out[i] |= int64(d << shift)
		}
		if a.NullN() > 0 {
			vb, off := Validity(a)
			for i := range n {
				if !IsValid(vb, off, i) {
					drop(i)
				}
			}
		}
	}
	return NewInt64(out, valid)
}
