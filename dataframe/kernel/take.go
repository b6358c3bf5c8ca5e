package kernel

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// Filter keeps the rows of rec where sel is 1. Keeping every row returns
// rec itself, retained.
func Filter(rec arrow.Record, sel []uint8) arrow.Record {
	n := 0
	for _, v := range sel {
		n += int(v)
	}
	if n == len(sel) {
		rec.Retain()
		return rec
	}
	idx := make([]int32, 0, n)
	for i, v := range sel {
		if v != 0 {
			idx = append(idx, int32(i))
		}
	}
	return TakeRecord(rec, idx)
}

// TakeRecord returns the rows of rec at idx, in that order.
func TakeRecord(rec arrow.Record, idx []int32) arrow.Record {
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		cols[i] = Take(c, idx)
	}
	out := array.NewRecord(rec.Schema(), cols, int64(len(idx)))
	for _, c := range cols {
		c.Release()
	}
	return out
}

// Take returns the rows of a at idx, in that order.
func Take(a arrow.Array, idx []int32) arrow.Array {
	return takeColumn(a, idx, takeValid(a, idx), false)
}

// takeColumn gathers a's values at idx under the validity valid; with
// orNull, an index of -1 gives a zero value (null by valid).
func takeColumn(a arrow.Array, idx []int32, valid []byte, orNull bool) arrow.Array {
	switch a := a.(type) {
	case *array.Int64:
		return NewInt64(gatherAt(a.Int64Values(), idx, orNull), valid)
	case *array.Float64:
		return NewFloat64(gatherAt(a.Float64Values(), idx, orNull), valid)
	case *array.Boolean:
		vals := make([]uint8, len(idx))
		for j, i := range idx {
			if i >= 0 {
				vals[j] = b2u(a.Value(int(i)))
			}
		}
		return NewBool(vals, valid)
	case *array.String:
		offs, vals := stringParts(a)
		outOffs, data := takeStrings(offs, vals, idx)
		return NewString(outOffs, data, valid)
	case *array.Dictionary:
		indices := gatherAt(a.Indices().(*array.Int32).Int32Values(), idx, orNull)
		return NewDict(indices, DictValues(a), valid)
	}
	panic(fmt.Sprintf("kernel: Take of %s", a.DataType()))
}

func gatherAt[T any](vals []T, idx []int32, orNull bool) []T {
	if orNull {
		return gatherOrZero(vals, idx)
	}
	return gather(vals, idx)
}

func gather[T any](vals []T, idx []int32) []T {
	out := make([]T, len(idx))
	for j, i := range idx {
		out[j] = vals[i]
	}
	return out
}

// takeValid gathers a's validity bitmap at idx; nil when a has no nulls or
// none of the taken rows is null.
func takeValid(a arrow.Array, idx []int32) []byte {
	valid, off := Validity(a)
	if valid == nil {
		return nil
	}
	out := make([]byte, (len(idx)+7)/8)
	any := false
	for j, i := range idx {
		k := off + int(i)
		if valid[k>>3]&(1<<(k&7)) != 0 {
			out[j>>3] |= 1 << (j & 7)
		} else {
			any = true
		}
	}
	if !any {
		return nil
	}
	return out
}

// takeStrings gathers the strings of offs and vals at idx (-1: empty) into
// new offsets and bytes, in one pass: idx is often in random order (a
// join's build side), where every pass costs cache misses, so the bytes
// are sized from the average length and grown if need be rather than
// measured first. Strings of up to 16 bytes are copied as one 16-byte word
// where both sides have room, without a call to memmove: most keys and
// labels are that short.
func takeStrings(offs []int32, vals []byte, idx []int32) ([]int32, []byte) {
	est := 16
	if rows := len(offs) - 1; rows > 0 {
		est += int(offs[rows]-offs[0]) / rows * len(idx) * 9 / 8
	}
	outOffs := make([]int32, len(idx)+1)
	data := make([]byte, est)
	pos := 0
	for j, i := range idx {
		if i >= 0 {
			start, end := int(offs[i]), int(offs[i+1])
			if pos+16+end-start > len(data) {
				data = append(data[:pos], make([]byte, len(data)/2+16+end-start)...)
				data = data[:cap(data)]
			}
			if end-start <= 16 && start+16 <= len(vals) {
				*(*[16]byte)(data[pos : pos+16]) = *(*[16]byte)(vals[start : start+16])
			} else {
				copy(data[pos:], vals[start:end])
			}
			pos += end - start
		}
		outOffs[j+1] = int32(pos)
	}
	return outOffs, data[:pos:pos]
}
