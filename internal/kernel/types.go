package kernel

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/internal/alloc"
)

// How the column types kernels take (described once in logical.go) are
// stored and built. Kernels that compute (hash, group, join, sort,
// aggregate, compare) read a column through Widen (logical.go), which gives every
// integer-like type as int64 and every float as float64; kernels that move
// rows (take, concatenate) copy any fixed-width type by its byte width, so
// a column keeps the type it was read with.

// RangeError is a uint64 value above int64's range met by a kernel that
// computes: kernels compute integers as int64, where the value would turn
// negative, so they fail rather than answer wrong. Keys (grouping, joining
// two uint64 keys, distinct, hashing), sorting and comparisons take every
// uint64 exactly.
type RangeError struct{ Value uint64 }

func (e *RangeError) Error() string {
	return fmt.Sprintf("the uint64 value %d is above int64's range, in which numbers are computed; "+
		"such a column can be a key (group, join, distinct), sorted and compared, or cast to float64 or decimal(20,0) first", e.Value)
}

// widenUnsigned is Widen of a uint64 column, in one pass: its values as
// int64, or a RangeError where a valid one is past int64's range.
func widenUnsigned(a arrow.Array) arrow.Array {
	vals := FixedValues[uint64](a)
	out := alloc.NoZeroOf[int64](len(vals))
	var high uint64 // the top bits of every value, null rows' too
	for i, v := range vals {
		out[i], high = int64(v), high|v
	}
	if high > math.MaxInt64 {
		for i, v := range vals {
			if v > math.MaxInt64 && a.IsValid(i) {
				panic(&RangeError{Value: v})
			}
		}
	}
	return NewInt64(out, AlignedValid(a))
}

// WidenAll widens each column; release releases what it made.
func WidenAll(cols []arrow.Array) (out []arrow.Array, release func()) {
	return widenAllBy(cols, Widen)
}

// WidenKeys is WidenAll for kernels that only test keys for equality
// (group, distinct, hash, joins of like-typed keys): a uint64 column
// becomes its bits as int64, one to one, and a decimal of more than 18
// digits two int64 columns, its high and low words (keyWords), so every
// value stays exact. There may be more columns out than in.
func WidenKeys(cols []arrow.Array) (out []arrow.Array, release func()) {
	return widenKeysBy(cols, func(_ int, c arrow.Array) arrow.Array { return widenKey(c) })
}

// widenKeysBy widens key columns with widen, but splits each decimal of
// more than 18 digits into its two words, which no one int64 or float64
// holds exactly (as floats, keys 1e13 apart by 0.0001 were one key), and
// each integer column widen gives nil for into its 128-bit words.
func widenKeysBy(cols []arrow.Array, widen func(i int, c arrow.Array) arrow.Array) (out []arrow.Array, release func()) {
	out = make([]arrow.Array, 0, len(cols))
	for i, c := range cols {
		if IsWideDecimal(c.DataType()) {
			hi, lo := keyWords(c)
			out = append(out, hi, lo)
			continue
		}
		w := widen(i, c)
		if w == nil {
			hi, lo := intWords(c)
			out = append(out, hi, lo)
			continue
		}
		out = append(out, w)
	}
	return out, func() {
		for _, c := range out {
			c.Release()
		}
	}
}

// IsWideDecimal reports whether t is a decimal of more than 18 digits,
// which has no int64 form.
func IsWideDecimal(t arrow.DataType) bool {
	d, ok := t.(*arrow.Decimal128Type)
	return ok && d.Precision > 18
}

// keyWords are a decimal128 column's high and low 64 bits as two int64
// columns with its nulls: equal values, and only they, have equal words.
func keyWords(a arrow.Array) (hi, lo arrow.Array) {
	vals := FixedValues[decimal128.Num](a)
	his, los := alloc.NoZeroOf[int64](len(vals)), alloc.NoZeroOf[int64](len(vals))
	for i, v := range vals {
		his[i], los[i] = v.HighBits(), int64(v.LowBits())
	}
	valid := AlignedValid(a)
	return NewInt64(his, valid), NewInt64(los, valid)
}

// widenKey is WidenKeys of one column.
func widenKey(a arrow.Array) arrow.Array {
	switch a.DataType().ID() {
	case arrow.UINT64:
		return NewInt64(widenTo[uint64, int64](a), AlignedValid(a)) // its bits
	case arrow.NULL: // every row the null key
		return NewInt64(alloc.Zeros[int64](a.Len()), make([]byte, (a.Len()+7)/8))
	}
	return Widen(a)
}

// WidenOrder is Widen for kernels that only order a column's values
// against each other (sort, top-n, range partitions): a uint64 column
// becomes int64 with the sign bit flipped, which orders as the unsigned
// values do.
func WidenOrder(a arrow.Array) arrow.Array {
	if a.DataType().ID() != arrow.UINT64 {
		return Widen(a)
	}
	vals := FixedValues[uint64](a)
	out := alloc.NoZeroOf[int64](len(vals))
	for i, v := range vals {
		out[i] = int64(v ^ 1<<63)
	}
	return NewInt64(out, AlignedValid(a))
}

func widenAllBy(cols []arrow.Array, widen func(arrow.Array) arrow.Array) (out []arrow.Array, release func()) {
	out = make([]arrow.Array, len(cols))
	for i, c := range cols {
		out[i] = widen(c)
	}
	return out, func() {
		for _, c := range out {
			c.Release()
		}
	}
}

// widenTo converts a's values to a wider number type.
func widenTo[From, To int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](a arrow.Array) []To {
	vals := FixedValues[From](a)
	out := alloc.NoZeroOf[To](len(vals)) // every value is written
	for i, v := range vals {
		out[i] = To(v)
	}
	return out
}

// FixedValues returns a fixed-width column's values as T, a type of the same
// width, borrowed from a's buffer.
func FixedValues[T any](a arrow.Array) []T {
	d := a.Data()
	b := d.Buffers()[1]
	if b == nil || b.Len() == 0 || d.Len() == 0 {
		return nil
	}
	var zero T
	all := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b.Bytes()))), b.Len()/int(unsafe.Sizeof(zero)))
	return all[d.Offset() : d.Offset()+d.Len()]
}

// NewFixed wraps vals, without copying, as a column of the fixed-width type
// t, whose values have T's width.
func NewFixed[T any](t arrow.DataType, vals []T, valid []byte) arrow.Array {
	vb, nulls := validBuffer(valid, len(vals))
	data := array.NewData(t, len(vals), []*memory.Buffer{vb, bufferOf(vals)}, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// ByteWidth is the width of a fixed-width type's values other than bools,
// or 0.
func ByteWidth(t arrow.DataType) int {
	if fw, ok := t.(arrow.FixedWidthDataType); ok && t.ID() != arrow.BOOL && !IsString(t) && t.ID() != arrow.NULL {
		return fw.BitWidth() / 8
	}
	return 0
}

// takeFixed gathers the rows loc locates in fixed-width parts by width.
func takeFixed(parts []arrow.Array, loc Rows, valid []byte) arrow.Array {
	t := parts[0].DataType()
	switch ByteWidth(t) {
	case 1:
		return NewFixed(t, gatherRows(partValues(parts, FixedValues[uint8]), loc), valid)
	case 2:
		return NewFixed(t, gatherRows(partValues(parts, FixedValues[uint16]), loc), valid)
	case 4:
		return NewFixed(t, gatherRows(partValues(parts, FixedValues[uint32]), loc), valid)
	case 8:
		return NewFixed(t, gatherRows(partValues(parts, FixedValues[uint64]), loc), valid)
	case 16:
		return NewFixed(t, gatherRows(partValues(parts, FixedValues[[2]uint64]), loc), valid)
	}
	panic(fmt.Sprintf("kernel: Take of %s", t))
}

// concatFixed appends fixed-width parts by width.
func concatFixed(t arrow.DataType, parts []arrow.Array, n int, valid []byte) (arrow.Array, bool) {
	switch ByteWidth(t) {
	case 1:
		return NewFixed(t, appendFixed[uint8](parts, n), valid), true
	case 2:
		return NewFixed(t, appendFixed[uint16](parts, n), valid), true
	case 4:
		return NewFixed(t, appendFixed[uint32](parts, n), valid), true
	case 8:
		return NewFixed(t, appendFixed[uint64](parts, n), valid), true
	case 16:
		return NewFixed(t, appendFixed[[2]uint64](parts, n), valid), true
	}
	return nil, false
}

func appendFixed[T any](parts []arrow.Array, n int) []T {
	out := make([]T, 0, n)
	for _, p := range parts {
		out = append(out, FixedValues[T](p)...)
	}
	return out
}

// ParseType reads a type as arrow.DataType's String writes it, for the
// types kernels take: "int32", "date32", "timestamp[us, tz=UTC]",
// "duration[ms]", "decimal(15, 2)", "utf8", "null".
func ParseType(s string) (arrow.DataType, error) {
	for _, t := range []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Date32,
		Bool, String, arrow.Null,
	} {
		if t.String() == s {
			return t, nil
		}
	}
	if s == "string" {
		return String, nil
	}
	if body, ok := strings.CutPrefix(s, "timestamp["); ok {
		unit, tz, _ := strings.Cut(strings.TrimSuffix(body, "]"), ", tz=")
		u, err := parseUnit(unit)
		if err != nil {
			return nil, err
		}
		if _, err := Location(tz); err != nil {
			return nil, err
		}
		return &arrow.TimestampType{Unit: u, TimeZone: tz}, nil
	}
	if body, ok := strings.CutPrefix(s, "duration["); ok {
		u, err := parseUnit(strings.TrimSuffix(body, "]"))
		if err != nil {
			return nil, err
		}
		return &arrow.DurationType{Unit: u}, nil
	}
	if body, ok := strings.CutPrefix(s, "decimal("); ok {
		p, sc, _ := strings.Cut(strings.TrimSuffix(body, ")"), ",")
		prec, err1 := strconv.Atoi(strings.TrimSpace(p))
		scale, err2 := strconv.Atoi(strings.TrimSpace(sc))
		if err1 != nil || err2 != nil || prec < 1 || prec > 38 || scale < 0 || scale > prec {
			return nil, fmt.Errorf("type %q: want decimal(precision, scale) with 1 <= precision <= 38 and 0 <= scale <= precision", s)
		}
		return &arrow.Decimal128Type{Precision: int32(prec), Scale: int32(scale)}, nil
	}
	return nil, fmt.Errorf("unknown type %q", s)
}

func parseUnit(s string) (arrow.TimeUnit, error) {
	for _, u := range []arrow.TimeUnit{arrow.Second, arrow.Millisecond, arrow.Microsecond, arrow.Nanosecond} {
		if u.String() == s {
			return u, nil
		}
	}
	return 0, fmt.Errorf("unknown time unit %q: the units are s, ms, us and ns", s)
}

// UnitsPerSecond is how many of unit u make a second.
func UnitsPerSecond(u arrow.TimeUnit) int64 {
	return [...]int64{1, 1e3, 1e6, 1e9}[u]
}

// Pow10 is 10^n as int64 for n in 0..18.
func Pow10(n int32) int64 { return int64(math.Pow10(int(n))) }

// WidenFloat is Widen, but with decimals as their float64 values (not
// unscaled): what averages and spreads compute on.
func WidenFloat(a arrow.Array) arrow.Array {
	t, ok := a.DataType().(*arrow.Decimal128Type)
	if !ok {
		return Widen(a)
	}
	vals := FixedValues[decimal128.Num](a)
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = v.ToFloat64(t.Scale)
	}
	return NewFloat64(out, AlignedValid(a))
}

// WideType is the type Widen gives a column of type t.
func WideType(t arrow.DataType) arrow.DataType {
	switch t.ID() {
	case arrow.FLOAT32, arrow.FLOAT64:
		return Float64
	case arrow.DECIMAL128:
		if t.(*arrow.Decimal128Type).Precision > 18 {
			return Float64
		}
		return Int64
	}
	switch k, _ := KindOf(t); k {
	case KindInt, KindDate, KindTimestamp, KindDuration:
		return Int64
	}
	return t
}

// DecimalToBigEndian is a decimal's unscaled value as Parquet and Avro
// store it: big-endian two's complement, in the fewest bytes that hold it.
func DecimalToBigEndian(v decimal128.Num) []byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(v.HighBits()))
	binary.BigEndian.PutUint64(b[8:], v.LowBits())
	i := 0 // drop the leading bytes that only repeat the sign
	for i < 15 && (b[i] == 0 && b[i+1]&0x80 == 0 || b[i] == 0xff && b[i+1]&0x80 != 0) {
		i++
	}
	return b[i:]
}

// DecimalFromBigEndian is DecimalToBigEndian undone: a two's complement
// big-endian integer of at most 16 bytes as a decimal's unscaled value.
func DecimalFromBigEndian(b []byte) decimal128.Num {
	var hi, lo uint64
	if len(b) > 0 && b[0]&0x80 != 0 { // negative: sign-extend
		hi, lo = ^uint64(0), ^uint64(0)
	}
	for _, c := range b {
		hi = hi<<8 | lo>>56
		lo = lo<<8 | uint64(c)
	}
	return decimal128.New(int64(hi), lo)
}

// FromInt64 makes a column of the integer-like type t (an integer of any
// width, signed or not, date32, a timestamp, a duration, or a decimal from
// its unscaled values) from int64s, narrowed as Go's conversions do
// (keeping the low bits); false for another type.
func FromInt64(t arrow.DataType, vals []int64, valid []byte) (arrow.Array, bool) {
	if t.ID() == arrow.DECIMAL128 {
		out := make([]decimal128.Num, len(vals))
		for i, v := range vals {
			out[i] = decimal128.FromI64(v)
		}
		return NewFixed(t, out, valid), true
	}
	if k, err := KindOf(t); err != nil || k != KindInt && k != KindDate && k != KindTimestamp && k != KindDuration {
		return nil, false
	}
	switch ByteWidth(t) {
	case 1:
		return NewFixed(t, lowBits[uint8](vals), valid), true
	case 2:
		return NewFixed(t, lowBits[uint16](vals), valid), true
	case 4:
		return NewFixed(t, lowBits[uint32](vals), valid), true
	}
	return NewFixed(t, vals, valid), true
}

func lowBits[T uint8 | uint16 | uint32](vals []int64) []T {
	out := make([]T, len(vals))
	for i, v := range vals {
		out[i] = T(v)
	}
	return out
}
