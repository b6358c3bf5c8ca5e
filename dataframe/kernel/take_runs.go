package kernel

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// TakeAscending gathers rows of parts, read as one array, at idx, which
// must not decrease (a join's probe side): it walks the parts in step
// instead of concatenating them first. Strings come out plain unless every
// part is encoded with one dictionary.
func TakeAscending(parts []arrow.Array, idx []int32) arrow.Array {
	if len(parts) == 1 {
		return Take(parts[0], idx)
	}
	starts := make([]int32, len(parts)+1)
	for i, p := range parts {
		starts[i+1] = starts[i] + int32(p.Len())
	}
	var valid []byte
	for _, p := range parts {
		if p.NullN() > 0 {
			valid = make([]byte, (len(idx)+7)/8)
			bits := make([][]byte, len(parts))
			offs := make([]int, len(parts))
			for k, q := range parts {
				bits[k], offs[k] = Validity(q)
			}
			at := cursor{starts: starts}
			for j, i := range idx {
				if c, r := at.find(i); IsValid(bits[c], offs[c], int(r)) {
					valid[j>>3] |= 1 << (j & 7)
				}
			}
			break
		}
	}
	switch parts[0].(type) {
	case *array.Int64:
		vals := make([][]int64, len(parts))
		for k, p := range parts {
			vals[k] = p.(*array.Int64).Int64Values()
		}
		return NewInt64(gatherParts(vals, starts, idx), valid)
	case *array.Float64:
		vals := make([][]float64, len(parts))
		for k, p := range parts {
			vals[k] = p.(*array.Float64).Float64Values()
		}
		return NewFloat64(gatherParts(vals, starts, idx), valid)
	case *array.Boolean:
		out := make([]uint8, len(idx))
		at := cursor{starts: starts}
		for j, i := range idx {
			c, r := at.find(i)
			out[j] = b2u(parts[c].(*array.Boolean).Value(int(r)))
		}
		return NewBool(out, valid)
	case *array.String, *array.Dictionary:
		if d := sharedDict(parts); d != nil {
			vals := make([][]int32, len(parts))
			for k, p := range parts {
				vals[k] = p.(*array.Dictionary).Indices().(*array.Int32).Int32Values()
			}
			return NewDict(gatherParts(vals, starts, idx), d, valid)
		}
		strs := make([]Strings, len(parts))
		for k, p := range parts {
			strs[k] = StringsOf(p)
		}
		size := 0
		at := cursor{starts: starts}
		for _, i := range idx {
			c, r := at.find(i)
			size += len(strs[c].bytesOf(int(r)))
		}
		offs := make([]int32, len(idx)+1)
		data := make([]byte, size+16)
		pos := 0
		at = cursor{starts: starts}
		for j, i := range idx {
			c, r := at.find(i)
			b := strs[c].bytesOf(int(r))
			if len(b) <= 16 && cap(b) >= 16 { // one word, no call to memmove
				*(*[16]byte)(data[pos : pos+16]) = *(*[16]byte)(b[:16])
			} else {
				copy(data[pos:], b)
			}
			pos += len(b)
			offs[j+1] = int32(pos)
		}
		return NewString(offs, data[:pos:pos], valid)
	}
	panic(fmt.Sprintf("kernel: TakeAscending of %s", parts[0].DataType()))
}

// cursor finds ascending rows of parts read as one: starts[k] is part k's
// first row; it only moves forward.
type cursor struct {
	starts []int32
	c      int
}

// find returns row i's part and its row there.
func (k *cursor) find(i int32) (int, int32) {
	for i >= k.starts[k.c+1] {
		k.c++
	}
	return k.c, i - k.starts[k.c]
}

func gatherParts[T any](vals [][]T, starts []int32, idx []int32) []T {
	out := make([]T, len(idx))
	at := cursor{starts: starts}
	for j, i := range idx {
		c, r := at.find(i)
		out[j] = vals[c][r]
	}
	return out
}
