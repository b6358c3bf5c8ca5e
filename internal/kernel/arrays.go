package kernel

import (
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// Types of the columns kernels work on.
var (
	Int64   = arrow.PrimitiveTypes.Int64
	Float64 = arrow.PrimitiveTypes.Float64
	Bool    = arrow.FixedWidthTypes.Boolean
	String  = arrow.BinaryTypes.String
	// Dict is the type of dictionary-encoded strings.
	Dict = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
)

// IsString reports whether t is a string column, plain or dictionary-encoded.
func IsString(t arrow.DataType) bool {
	if d, ok := t.(*arrow.DictionaryType); ok {
		return d.ValueType.ID() == arrow.STRING
	}
	return t.ID() == arrow.STRING
}

// TypeName names a column type for users: dictionary strings are "string".
func TypeName(t arrow.DataType) string {
	if IsString(t) {
		return "string"
	}
	return t.String()
}

// SameType reports whether a and b hold the same kind of values, counting
// plain and dictionary strings as one.
func SameType(a, b arrow.DataType) bool {
	if IsString(a) || IsString(b) {
		return IsString(a) && IsString(b)
	}
	return arrow.TypeEqual(a, b)
}

func bufferOf[T any](s []T) *memory.Buffer {
	if len(s) == 0 {
		return memory.NewBufferBytes(nil)
	}
	var zero T
	return memory.NewBufferBytes(unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(zero))))
}

// nullsIn counts the unset bits of a validity bitmap of n rows; nil means none.
func nullsIn(valid []byte, n int) int {
	if valid == nil {
		return 0
	}
	set := 0
	full := n / 8
	for _, b := range valid[:full] {
		set += bits.OnesCount8(b)
	}
	for i := full * 8; i < n; i++ {
		if valid[i>>3]&(1<<(i&7)) != 0 {
			set++
		}
	}
	return n - set
}

func validBuffer(valid []byte, n int) (*memory.Buffer, int) {
	nulls := nullsIn(valid, n)
	if nulls == 0 {
		return nil, 0
	}
	return memory.NewBufferBytes(valid), nulls
}

// NewInt64 wraps vals, without copying, as an int64 array. valid is an Arrow
// validity bitmap (bit set: not null), or nil when nothing is null.
func NewInt64(vals []int64, valid []byte) *array.Int64 {
	vb, nulls := validBuffer(valid, len(vals))
	return array.NewInt64Data(array.NewData(Int64, len(vals), []*memory.Buffer{vb, bufferOf(vals)}, nil, nulls, 0))
}

// NewFloat64 wraps vals, without copying, as a float64 array.
func NewFloat64(vals []float64, valid []byte) *array.Float64 {
	vb, nulls := validBuffer(valid, len(vals))
	return array.NewFloat64Data(array.NewData(Float64, len(vals), []*memory.Buffer{vb, bufferOf(vals)}, nil, nulls, 0))
}

// NewBool packs n values given one byte each (0 or 1) into a bool array.
func NewBool(vals []uint8, valid []byte) *array.Boolean {
	n := len(vals)
	packed := make([]byte, (n+7)/8)
	for i, v := range vals {
		packed[i>>3] |= (v & 1) << (i & 7)
	}
	vb, nulls := validBuffer(valid, n)
	return array.NewBooleanData(array.NewData(Bool, n, []*memory.Buffer{vb, memory.NewBufferBytes(packed)}, nil, nulls, 0))
}

// NewString wraps offsets (len n+1) and data as a string array.
func NewString(offsets []int32, data []byte, valid []byte) *array.String {
	n := len(offsets) - 1
	vb, nulls := validBuffer(valid, n)
	return array.NewStringData(array.NewData(String, n, []*memory.Buffer{vb, bufferOf(offsets), memory.NewBufferBytes(data)}, nil, nulls, 0))
}

// NewDict wraps indices into dict as a dictionary-encoded string array.
func NewDict(indices []int32, dict *array.String, valid []byte) *array.Dictionary {
	vb, nulls := validBuffer(valid, len(indices))
	data := array.NewDataWithDictionary(Dict, len(indices), []*memory.Buffer{vb, bufferOf(indices)}, nulls, 0, dict.Data().(*array.Data))
	defer data.Release()
	return array.NewDictionaryData(data)
}

// Validity returns a's validity bitmap and the bit offset of its first row,
// or nil when no row is null.
func Validity(a arrow.Array) ([]byte, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	if a.NullBitmapBytes() == nil { // Arrow's null type: every row null, no bitmap
		return make([]byte, (a.Len()+7)/8), 0
	}
	return a.NullBitmapBytes(), a.Data().Offset()
}

// IsValid reports whether row i is not null, given Validity's results.
func IsValid(valid []byte, off, i int) bool {
	return valid == nil || valid[(off+i)>>3]&(1<<((off+i)&7)) != 0
}

// Strings gives a string column's rows as offsets into data, for plain
// strings; for dictionary strings it returns the indices and the dictionary.
type Strings struct {
	Offsets []int32 // plain: len n+1
	Data    []byte
	Indices []int32 // dictionary: len n
	Dict    *array.String
}

// DictValues returns a string dictionary column's values, borrowed as
// Dictionary() returns them: they live as long as the column. Unlike
// Dictionary(), which builds its array on first use and so races when
// tasks share a column (a broadcast join side), it reads the shared data
// without changing the column.
func DictValues(a *array.Dictionary) *array.String {
	d := array.NewStringData(a.Data().Dictionary())
	d.Data().Release() // the reference NewStringData took: borrowed
	return d
}

// sameDict reports whether two dictionary values arrays share their data.
func sameDict(x, y *array.String) bool { return x != nil && y != nil && x.Data() == y.Data() }

// StringsOf reads a string column.
func StringsOf(a arrow.Array) Strings {
	switch a := a.(type) {
	case *array.String:
		offs, data := stringParts(a)
		return Strings{Offsets: offs, Data: data}
	case *array.Dictionary:
		return Strings{Indices: a.Indices().(*array.Int32).Int32Values(), Dict: DictValues(a)}
	}
	panic(fmt.Sprintf("kernel: %s is not a string column", a.DataType()))
}

// Value returns row i as a string that shares the column's memory. A null
// row of a dictionary column may hold any index; outside the dictionary it
// reads as "".
func (s Strings) Value(i int) string {
	if s.Indices != nil {
		if j := s.Indices[i]; uint(j) < uint(s.Dict.Len()) {
			return s.Dict.Value(int(j))
		}
		return ""
	}
	b := s.Data[s.Offsets[i]:s.Offsets[i+1]]
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// bytesOf returns row i's bytes.
func (s Strings) bytesOf(i int) []byte {
	if s.Indices != nil {
		if j := s.Indices[i]; uint(j) < uint(s.Dict.Len()) {
			return dictBytes(s.Dict, int(j))
		}
		return nil
	}
	return s.Data[s.Offsets[i]:s.Offsets[i+1]]
}

func dictBytes(d *array.String, j int) []byte {
	offs, data := stringParts(d)
	return data[offs[j]:offs[j+1]]
}

// stringParts returns a's offsets (n+1 of them, for its rows) and the data
// buffer they index; unlike ValueBytes, offsets stay valid in a slice.
func stringParts(a *array.String) ([]int32, []byte) {
	var data []byte
	if b := a.Data().Buffers()[2]; b != nil {
		data = b.Bytes()
	}
	return a.ValueOffsets(), data
}
