package kernel

import (
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// CastError is a value that does not convert: the row (within the column
// cast) and the value as text.
type CastError struct {
	Row   int
	Value string
	To    Kind
}

func (e *CastError) Error() string {
	return fmt.Sprintf("cannot cast %s to %s (row %d)", e.Value, e.To, e.Row)
}

// Cast converts a column to kind to. Strict, a value that does not convert
// (text that is no number, a float out of int64's range or NaN) is a
// *CastError; lenient, it becomes null. Floats cast to int64 truncate toward
// zero; numbers cast to bool are true where not zero; strings cast to bool
// accept true/false and 1/0. A dictionary column converts each distinct
// string once.
func Cast(a arrow.Array, to Kind, strict bool) (_ arrow.Array, err error) {
	defer overflowed(&err)
	from, err := KindOf(a.DataType())
	if err != nil {
		return nil, err
	}
	if a.DataType().ID() == arrow.UINT64 && to == KindFloat { // every uint64 to its nearest float
		return NewFloat64(widenTo[uint64, float64](a), AlignedValid(a)), nil
	}
	n := a.Len()
	if from == to { // a narrower number widens; strings stay as they are
		return Widen(a), nil
	}
	valid := Col(a).validBytes(n)
	fail := func(i int, v string) error {
		if strict {
			return &CastError{Row: i, Value: v, To: to}
		}
		if valid == nil {
			valid = ones(nil, n)
		}
		valid[i] = 0
		return nil
	}
	switch from {
	case KindNull:
		return Nulls(to, n), nil
	case KindString:
		return castStrings(a, to, strict)
	}
	if to == KindString {
		return castToString(a, from), nil
	}
	switch {
	case from == KindInt && to == KindFloat:
		x, _ := Col(a).floats()
		return NewFloat64(x, packValid(valid)), nil
	case from == KindFloat && to == KindInt:
		x, _ := Col(a).floats()
		out := make([]int64, n)
		for i, v := range x {
			if v >= -0x1p63 && v < 0x1p63 {
				out[i] = int64(v)
			} else if valid == nil || valid[i] != 0 {
				if err := fail(i, strconv.FormatFloat(v, 'g', -1, 64)); err != nil {
					return nil, err
				}
			}
		}
		return NewInt64(out, packValid(valid)), nil
	case to == KindBool:
		x, _ := Col(a).floats()
		out := make([]uint8, n)
		for i, v := range x {
			out[i] = b2u(v != 0)
		}
		return NewBool(out, packValid(valid)), nil
	case from == KindBool:
		m := MaskOf(Col(a), n)
		if to == KindInt {
			out := make([]int64, n)
			for i, v := range m.Vals {
				out[i] = int64(v)
			}
			return NewInt64(out, packValid(valid)), nil
		}
		out := make([]float64, n)
		for i, v := range m.Vals {
			out[i] = float64(v)
		}
		return NewFloat64(out, packValid(valid)), nil
	}
	return nil, fmt.Errorf("cannot cast %s to %s", from, to)
}

// castStrings parses a string column. A dictionary's entries are parsed
// once each, and one that does not parse is reported at the first row that
// holds it.
func castStrings(a arrow.Array, to Kind, strict bool) (arrow.Array, error) {
	s := StringsOf(a)
	n := a.Len()
	valid := Col(a).validBytes(n)
	if s.Indices == nil {
		return parseStrings(n, valid, s.bytesOf, to, strict)
	}
	dict, err := parseStrings(s.Dict.Len(), nil, func(j int) []byte { return dictBytes(s.Dict, j) }, to, false)
	if err != nil {
		return nil, err
	}
	defer dict.Release()
	if dv := Col(dict).validBytes(dict.Len()); dv != nil {
		valid = ones(valid, n)
		for i, j := range s.Indices {
			if valid[i] != 0 && uint(j) < uint(len(dv)) && dv[j] == 0 {
				if strict {
					return nil, &CastError{Row: i, Value: strconv.Quote(s.Dict.Value(int(j))), To: to}
				}
				valid[i] = 0
			}
		}
	}
	switch to {
	case KindInt:
		out := make([]int64, n)
		gatherTable(dict.(*array.Int64).Int64Values(), s.Indices, out)
		return NewInt64(out, packValid(valid)), nil
	case KindFloat:
		out := make([]float64, n)
		gatherTable(dict.(*array.Float64).Float64Values(), s.Indices, out)
		return NewFloat64(out, packValid(valid)), nil
	}
	out := make([]uint8, n)
	gatherTable(MaskOf(Col(dict), dict.Len()).Vals, s.Indices, out)
	return NewBool(out, packValid(valid)), nil
}

// parseStrings parses n strings got by at into a column of kind to.
func parseStrings(n int, valid []uint8, at func(i int) []byte, to Kind, strict bool) (arrow.Array, error) {
	bad := func(i int) error {
		if strict {
			return &CastError{Row: i, Value: strconv.Quote(string(at(i))), To: to}
		}
		if valid == nil {
			valid = ones(nil, n)
		}
		valid[i] = 0
		return nil
	}
	switch to {
	case KindInt:
		out := make([]int64, n)
		for i := range out {
			if valid != nil && valid[i] == 0 {
				continue
			}
			v, ok := parseInt(at(i))
			if !ok {
				if err := bad(i); err != nil {
					return nil, err
				}
			}
			out[i] = v
		}
		return NewInt64(out, packValid(valid)), nil
	case KindFloat:
		out := make([]float64, n)
		for i := range out {
			if valid != nil && valid[i] == 0 {
				continue
			}
			b := at(i)
			v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
			if err != nil {
				if err := bad(i); err != nil {
					return nil, err
				}
			}
			out[i] = v
		}
		return NewFloat64(out, packValid(valid)), nil
	case KindBool:
		out := make([]uint8, n)
		for i := range out {
			if valid != nil && valid[i] == 0 {
				continue
			}
			switch string(at(i)) {
			case "true", "True", "TRUE", "1":
				out[i] = 1
			case "false", "False", "FALSE", "0":
			default:
				if err := bad(i); err != nil {
					return nil, err
				}
			}
		}
		return NewBool(out, packValid(valid)), nil
	}
	return nil, fmt.Errorf("cannot cast string to %s", to)
}

// parseInt reads a base-10 int64 with an optional sign, as strconv.ParseInt
// does, without its allocation on failure.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, b = b[0] == '-', b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		u = u*10 + uint64(d)
	}
	switch {
	case neg && u <= 1<<63:
		return -int64(u), true
	case !neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}

// castToString formats numbers and bools as pandas prints them: whole
// floats keep a ".0".
func castToString(a arrow.Array, from Kind) arrow.Array {
	n := a.Len()
	valid := Col(a).validBytes(n)
	switch from {
	case KindInt:
		if u, ok := a.(*array.Uint64); ok {
			x := u.Uint64Values()
			return buildStrings(n, valid, func(dst []byte, i int) ([]byte, bool) { return strconv.AppendUint(dst, x[i], 10), true })
		}
		x, _ := Col(a).ints()
		return buildStrings(n, valid, func(dst []byte, i int) ([]byte, bool) { return strconv.AppendInt(dst, x[i], 10), true })
	case KindFloat:
		x, _ := Col(a).floats()
		return buildStrings(n, valid, func(dst []byte, i int) ([]byte, bool) { return AppendFloat(dst, x[i]), true })
	}
	m := MaskOf(Col(a), n)
	return buildStrings(n, valid, func(dst []byte, i int) ([]byte, bool) { return strconv.AppendBool(dst, m.Vals[i] != 0), true })
}

// AppendFloat formats v in the shortest form that reads back exactly, with a
// ".0" on whole numbers (1.0, not 1), as pandas and Polars print floats.
func AppendFloat(dst []byte, v float64) []byte {
	start := len(dst)
	dst = strconv.AppendFloat(dst, v, 'g', -1, 64)
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return dst
	}
	for _, c := range dst[start:] {
		if c == '.' || c == 'e' {
			return dst
		}
	}
	return append(dst, ".0"...)
}

// Nulls is a column of n nulls of kind k.
func Nulls(k Kind, n int) arrow.Array {
	none := make([]byte, (n+7)/8)
	switch k {
	case KindInt:
		return NewInt64(make([]int64, n), none)
	case KindFloat:
		return NewFloat64(make([]float64, n), none)
	case KindBool:
		return NewBool(make([]uint8, n), none)
	case KindString:
		return NewString(make([]int32, n+1), nil, none)
	}
	return array.NewNull(n)
}
