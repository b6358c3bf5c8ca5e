package store

import (
	"reflect"

	"github.com/apache/arrow/go/v15/arrow"
)

// Sizer is implemented by values that know their size in memory.
type Sizer interface{ SizeBytes() int64 }

// SizeOf returns the bytes v holds: the exact buffer sizes of Arrow data,
// SizeBytes for a Sizer, and for other Go values their memory, followed
// through slices, strings, maps and pointers.
func SizeOf(v any) int64 {
	switch v := v.(type) {
	case nil:
		return 0
	case arrow.Record:
		var n int64
		for _, c := range v.Columns() {
			n += arrayDataSize(c.Data())
		}
		return n
	case arrow.Array:
		return arrayDataSize(v.Data())
	case Sizer:
		return v.SizeBytes()
	case []byte:
		return int64(cap(v))
	case string:
		return int64(len(v))
	}
	rv := reflect.ValueOf(v)
	return int64(rv.Type().Size()) + reachable(rv, 0)
}

func arrayDataSize(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += arrayDataSize(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += arrayDataSize(d.Dictionary())
	}
	return n
}

// reachable is the memory v points to beyond its own header, followed to a
// bounded depth.
func reachable(v reflect.Value, depth int) int64 {
	if depth > 8 {
		return 0
	}
	var n int64
	switch v.Kind() {
	case reflect.String:
		n = int64(v.Len())
	case reflect.Slice:
		elem := v.Type().Elem()
		n = int64(v.Cap()) * int64(elem.Size())
		if !isFlat(elem) {
			for i := 0; i < v.Len(); i++ {
				n += reachable(v.Index(i), depth+1)
			}
		}
	case reflect.Array:
		if !isFlat(v.Type().Elem()) {
			for i := 0; i < v.Len(); i++ {
				n += reachable(v.Index(i), depth+1)
			}
		}
	case reflect.Map:
		kt, vt := v.Type().Key(), v.Type().Elem()
		n = int64(v.Len()) * int64(kt.Size()+vt.Size())
		iter := v.MapRange()
		for iter.Next() {
			n += reachable(iter.Key(), depth+1) + reachable(iter.Value(), depth+1)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			e := v.Elem()
			n = int64(e.Type().Size()) + reachable(e, depth+1)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			n += reachable(v.Field(i), depth+1)
		}
	}
	return n
}

// isFlat reports whether values of t hold no pointers to more memory.
func isFlat(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return isFlat(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !isFlat(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
