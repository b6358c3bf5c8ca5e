package kernel

import (
	"bytes"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// The string kernels take a plain or dictionary-encoded string column. On a
// dictionary column each distinct string is evaluated once: a test or a
// number is looked up through the indices, and a string result keeps the
// indices with a new dictionary, so the cost is that of the distinct values
// plus, at most, one gather.

// StringTest is 1 where test holds for the row's string; nulls stay null.
func StringTest(a arrow.Array, test func(s []byte) bool) Mask {
	n := a.Len()
	out := Mask{Vals: make([]uint8, n), Valid: Col(a).validBytes(n)}
	s := StringsOf(a)
	if s.Indices != nil {
		offs, data := stringParts(s.Dict)
		table := make([]uint8, s.Dict.Len())
		for j := range table {
			table[j] = b2u(test(data[offs[j]:offs[j+1]]))
		}
		gatherTable(table, s.Indices, out.Vals)
		return out
	}
	for i := range out.Vals {
		out.Vals[i] = b2u(test(s.Data[s.Offsets[i]:s.Offsets[i+1]]))
	}
	return out
}

// gatherTable sets out[i] to table[idx[i]]; an index outside the table (a
// null row's) leaves 0.
func gatherTable[T any](table []T, idx []int32, out []T) {
	for i, j := range idx {
		if uint(j) < uint(len(table)) {
			out[i] = table[j]
		}
	}
}

// Contains is 1 where the row's string holds pat. On plain strings it
// searches the column's bytes as one buffer (memchr speed), then checks that
// each hit lies within one row.
func Contains(a arrow.Array, pat []byte) Mask {
	s := StringsOf(a)
	if s.Indices != nil || len(pat) == 0 {
		return StringTest(a, func(b []byte) bool { return bytes.Contains(b, pat) })
	}
	n := a.Len()
	out := Mask{Vals: make([]uint8, n), Valid: Col(a).validBytes(n)}
	if n == 0 {
		return out
	}
	offs, data := s.Offsets, s.Data
	pos, end, row := int(offs[0]), int(offs[n]), 0
	for pos < end {
		k := bytes.Index(data[pos:end], pat)
		if k < 0 {
			break
		}
		hit := pos + k
		for int(offs[row+1]) <= hit {
			row++
		}
		if hit+len(pat) <= int(offs[row+1]) {
			out.Vals[row] = 1
		}
		// A later hit in this row would cross its end too, or is not needed.
		pos = int(offs[row+1])
		row++
	}
	return out
}

// StringMap maps each row's string through f, which appends its result to
// dst and returns it, with false for a null result. A dictionary column
// keeps its indices under a mapped dictionary.
func StringMap(a arrow.Array, f func(dst, s []byte) ([]byte, bool)) arrow.Array {
	s := StringsOf(a)
	if s.Indices != nil {
		offs, data := stringParts(s.Dict)
		dict := buildStrings(s.Dict.Len(), nil, func(dst []byte, j int) ([]byte, bool) {
			return f(dst, data[offs[j]:offs[j+1]])
		})
		defer dict.Release()
		valid := Col(a).validBytes(a.Len())
		if dv := Col(dict).validBytes(dict.Len()); dv != nil {
			valid = ones(valid, a.Len())
			for i, j := range s.Indices {
				if uint(j) < uint(len(dv)) && dv[j] == 0 {
					valid[i] = 0
				}
			}
		}
		return NewDict(append([]int32(nil), s.Indices...), dict, packValid(valid))
	}
	return buildStrings(a.Len(), Col(a).validBytes(a.Len()), func(dst []byte, i int) ([]byte, bool) {
		return f(dst, s.Data[s.Offsets[i]:s.Offsets[i+1]])
	})
}

// buildStrings builds a plain string column of n rows, row i appended to
// dst by f (false: null); rows null in valid stay null and are not built.
func buildStrings(n int, valid []uint8, f func(dst []byte, i int) ([]byte, bool)) *array.String {
	offs := make([]int32, n+1)
	data := make([]byte, 0, 16*n)
	var outValid []uint8
	for i := 0; i < n; i++ {
		if valid == nil || valid[i] != 0 {
			var ok bool
			if data, ok = f(data, i); !ok {
				if outValid == nil {
					outValid = ones(append([]uint8(nil), valid...), n)
				}
				outValid[i] = 0
			}
		}
		offs[i+1] = int32(len(data))
	}
	if outValid == nil {
		outValid = valid
	}
	return NewString(offs, data, packValid(outValid))
}

// StringInts computes an int64 of each row's string; nulls stay null.
func StringInts(a arrow.Array, f func(s []byte) int64) arrow.Array {
	n := a.Len()
	out := make([]int64, n)
	s := StringsOf(a)
	if s.Indices != nil {
		offs, data := stringParts(s.Dict)
		table := make([]int64, s.Dict.Len())
		for j := range table {
			table[j] = f(data[offs[j]:offs[j+1]])
		}
		gatherTable(table, s.Indices, out)
	} else {
		for i := range out {
			out[i] = f(s.Data[s.Offsets[i]:s.Offsets[i+1]])
		}
	}
	return NewInt64(out, AlignedValid(a))
}

// RuneCount is the number of characters (code points) in s, as pandas'
// str.len and Polars' len_chars count.
func RuneCount(s []byte) int64 { return int64(utf8.RuneCount(s)) }

// ConcatStrings joins the rows of string operands (columns or scalars) end
// to end; a null in any operand gives null, as SQL's ||.
func ConcatStrings(parts []Datum, n int) arrow.Array {
	var valid []uint8
	cols := make([]Strings, len(parts))
	for k, p := range parts {
		valid = andValid(valid, p.validBytes(n))
		if p.Array != nil {
			cols[k] = StringsOf(p.Array)
		}
	}
	return buildStrings(n, valid, func(dst []byte, i int) ([]byte, bool) {
		for k, p := range parts {
			if p.Array != nil {
				dst = append(dst, cols[k].bytesOf(i)...)
			} else {
				dst = append(dst, p.Scalar.(string)...)
			}
		}
		return dst, true
	})
}
