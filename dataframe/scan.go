package dataframe

import (
	"context"
	"fmt"
	"iter"
	"math"
	"reflect"
	"strings"
	"time"
	"unsafe"

	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/kernel"
)

// Collect computes f and returns its rows as Go structs: each exported
// field takes the column named by its `dusk:"name"` tag, or its own name
// (matched without regard to case when no column has it exactly); see
// Table.Scan for the types that fit.
func Collect[T any](ctx context.Context, f *Frame) ([]T, error) {
	tab, err := f.Compute(ctx)
	if err != nil {
		return nil, err
	}
	defer tab.Release()
	var rows []T
	if err := tab.Scan(&rows); err != nil {
		return nil, err
	}
	return rows, nil
}

// Scan appends the table's rows to *dst, a pointer to a slice of structs,
// as Collect fills them. Integer fields take integer columns, float fields
// numeric and decimal ones, strings string and decimal ones (as text),
// bools bools, time.Time dates and timestamps (in the column's time zone),
// time.Duration durations. A null goes into a pointer field as nil, and
// is an error for any other. A field no column fills, or one whose type
// cannot hold its column's, is an error naming both.
func (t *Table) Scan(dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Slice || v.Elem().Type().Elem().Kind() != reflect.Struct {
		return fmt.Errorf("dataframe: Scan: want a pointer to a slice of structs, not a %T", dst)
	}
	slice := v.Elem()
	p, err := t.plan(slice.Type().Elem())
	if err != nil {
		return err
	}
	n := t.NumRows()
	start := slice.Len()
	slice.Grow(n)
	slice.SetLen(start + n)
	for i := 0; i < n; i++ {
		if err := p.fill(unsafe.Pointer(slice.Index(start+i).Addr().Pointer()), i); err != nil {
			slice.SetLen(start)
			return err
		}
	}
	return nil
}

// Rows iterates over the table's rows.
func (t *Table) Rows() iter.Seq[Row] {
	return func(yield func(Row) bool) {
		for i := 0; i < t.NumRows(); i++ {
			if !yield(Row{t: t, i: i}) {
				return
			}
		}
	}
}

// Row is one row of a table, as Rows yields it.
type Row struct {
	t *Table
	i int
}

// Index is the row's number in its table.
func (r Row) Index() int { return r.i }

// Value is the row's value in column col: nil for a null, else an int64
// (a uint64 past int64's range), float64, bool, string, time.Time (dates
// and timestamps), time.Duration, or, for a decimal, its exact text.
func (r Row) Value(col string) (any, error) {
	rd, err := r.t.reader(col)
	if err != nil {
		return nil, err
	}
	if rd.null(r.i) {
		return nil, nil
	}
	switch rd.src {
	case srcInt:
		v := rd.i64(r.i)
		if rd.unsigned && v < 0 {
			return uint64(v), nil
		}
		return v, nil
	case srcFloat:
		return rd.f64(r.i), nil
	case srcBool:
		return rd.b(r.i), nil
	case srcTime:
		return rd.tm(r.i), nil
	case srcDuration:
		return time.Duration(rd.i64(r.i)), nil
	}
	return rd.str(r.i), nil
}

// reader returns the table's reader of column col, made once.
func (t *Table) reader(col string) (*reader, error) {
	t.scanMu.Lock()
	defer t.scanMu.Unlock()
	return t.readerLocked(col)
}

// readerLocked is reader, called with scanMu held.
func (t *Table) readerLocked(col string) (*reader, error) {
	if rd, ok := t.readers[col]; ok {
		return rd, nil
	}
	a := t.Column(col)
	if a == nil {
		return nil, fmt.Errorf("dataframe: no column %q (columns: %s)", col, strings.Join(plan.Names(t.Schema()), ", "))
	}
	rd, err := newReader(col, a)
	if err != nil {
		return nil, err
	}
	if t.readers == nil {
		t.readers = map[string]*reader{}
	}
	t.readers[col] = rd
	return rd, nil
}

// Scan fills *dst, a pointer to a struct, from the row, as Table.Scan does.
func (r Row) Scan(dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("dataframe: Row.Scan: want a pointer to a struct, not a %T", dst)
	}
	p, err := r.t.plan(v.Elem().Type())
	if err != nil {
		return err
	}
	return p.fill(v.UnsafePointer(), r.i)
}

// scanPlan fills structs of one type from a table's columns.
type scanPlan struct {
	fields []fieldFill
}

type fieldFill struct {
	offset uintptr
	set    func(p unsafe.Pointer, i int) error
}

func (p *scanPlan) fill(base unsafe.Pointer, i int) error {
	for _, f := range p.fields {
		if err := f.set(unsafe.Add(base, f.offset), i); err != nil {
			return err
		}
	}
	return nil
}

// plan returns the table's plan for struct type st, made once per type;
// its columns' readers are the table's (readerLocked).
func (t *Table) plan(st reflect.Type) (*scanPlan, error) {
	t.scanMu.Lock()
	defer t.scanMu.Unlock()
	if p, ok := t.plans[st]; ok {
		return p, nil
	}
	p, err := newScanPlan(t, st)
	if err != nil {
		return nil, err
	}
	if t.plans == nil {
		t.plans = map[reflect.Type]*scanPlan{}
	}
	t.plans[st] = p
	return p, nil
}

func newScanPlan(t *Table, st reflect.Type) (*scanPlan, error) {
	schema := t.Schema()
	p := &scanPlan{}
	for f, name := range columnFields(st) {
		ci := columnFor(schema, name)
		if ci < 0 {
			return nil, fmt.Errorf("dataframe: Scan into %s: field %s: no column named %q (columns: %s)",
				st, f.Name, name, strings.Join(plan.Names(schema), ", "))
		}
		col := schema.Field(ci)
		rd, err := t.readerLocked(col.Name)
		if err != nil {
			return nil, err
		}
		set, ok := setterFor(f.Type, rd)
		if !ok {
			return nil, fmt.Errorf("dataframe: Scan into %s: field %s (%s) cannot hold column %s (%s)",
				st, f.Name, f.Type, col.Name, col.Type)
		}
		if len(f.Index) > 1 {
			off := uintptr(0)
			ft := st
			for _, i := range f.Index {
				sf := ft.Field(i)
				off += sf.Offset
				ft = sf.Type
			}
			p.fields = append(p.fields, fieldFill{offset: off, set: set})
		} else {
			p.fields = append(p.fields, fieldFill{offset: f.Offset, set: set})
		}
	}
	return p, nil
}

// columnFor finds the column called name: exactly, or else the one column
// equal to it without regard to case.
func columnFor(s *arrow.Schema, name string) int {
	if idx := s.FieldIndices(name); len(idx) > 0 {
		return idx[0]
	}
	found := -1
	for i, f := range s.Fields() {
		if strings.EqualFold(f.Name, name) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// srcKind is what a column's values read as.
type srcKind int

const (
	srcInt srcKind = iota
	srcFloat
	srcBool
	srcString
	srcTime
	srcDuration // nanoseconds
	srcDecimal  // reads as float (f64) and text (str)
)

// reader reads a column's values by row.
type reader struct {
	col      string
	src      srcKind
	unsigned bool // i64 gives a uint64's bits
	null     func(i int) bool
	i64      func(i int) int64
	f64      func(i int) float64
	b        func(i int) bool
	str      func(i int) string
	tm       func(i int) time.Time
	keep     []arrow.Array // widened copies, released after
}

func (r *reader) release() {
	for _, a := range r.keep {
		a.Release()
	}
}

func newReader(col string, a arrow.Array) (*reader, error) {
	r := &reader{col: col, null: a.IsNull}
	switch t := a.DataType().(type) {
	case *arrow.Date32Type:
		d := a.(*array.Date32).Date32Values()
		r.src, r.tm = srcTime, func(i int) time.Time { return time.Unix(int64(d[i])*86400, 0).UTC() }
	case *arrow.TimestampType:
		v := a.(*array.Timestamp).TimestampValues()
		loc := time.UTC
		if t.TimeZone != "" {
			l, err := time.LoadLocation(t.TimeZone)
			if err != nil {
				return nil, fmt.Errorf("dataframe: column %s: time zone %q: %w", col, t.TimeZone, err)
			}
			loc = l
		}
		unit := t.Unit
		r.src, r.tm = srcTime, func(i int) time.Time { return v[i].ToTime(unit).In(loc) }
	case *arrow.Uint64Type: // as its bits: past int64's range only a uint64 holds it
		v := a.(*array.Uint64).Uint64Values()
		r.src, r.unsigned, r.i64 = srcInt, true, func(i int) int64 { return int64(v[i]) }
	case *arrow.DurationType:
		v := a.(*array.Duration).DurationValues()
		mult := int64(t.Unit.Multiplier())
		r.src, r.i64 = srcDuration, func(i int) int64 { return int64(v[i]) * mult }
	case *arrow.Decimal128Type:
		v := a.(*array.Decimal128).Values()
		scale := t.Scale
		text, err := kernel.TextOf(a)
		if err != nil {
			return nil, err
		}
		r.src = srcDecimal
		r.f64 = func(i int) float64 { return v[i].ToFloat64(scale) }
		r.str = func(i int) string { return string(text(nil, i)) }
	default:
		k, err := kernel.KindOf(a.DataType())
		if err != nil {
			return nil, fmt.Errorf("dataframe: column %s: %w", col, err)
		}
		switch k {
		case kernel.KindString:
			s := kernel.StringsOf(a)
			r.src, r.str = srcString, s.Value
		case kernel.KindBool:
			b := a.(*array.Boolean)
			r.src, r.b = srcBool, b.Value
		case kernel.KindInt:
			w := kernel.Widen(a).(*array.Int64)
			r.keep = append(r.keep, w)
			r.src, r.i64 = srcInt, w.Value
		case kernel.KindFloat:
			w := kernel.Widen(a).(*array.Float64)
			r.keep = append(r.keep, w)
			r.src, r.f64 = srcFloat, w.Value
		default:
			return nil, fmt.Errorf("dataframe: column %s of type %s cannot be read into Go values", col, a.DataType())
		}
	}
	return r, nil
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
)

// setter writes row i of a column into a field at p.
type setter func(p unsafe.Pointer, i int) error

// setterFor writes column values into a field of type ft; false when the
// types do not fit.
func setterFor(ft reflect.Type, r *reader) (setter, bool) {
	if ft.Kind() == reflect.Pointer {
		elem, ok := valueSetter(ft.Elem(), r)
		if !ok {
			return nil, false
		}
		alloc := allocator(ft.Elem())
		return func(p unsafe.Pointer, i int) error {
			if r.null(i) {
				*(*unsafe.Pointer)(p) = nil
				return nil
			}
			x := alloc()
			*(*unsafe.Pointer)(p) = x
			return elem(x, i)
		}, true
	}
	set, ok := valueSetter(ft, r)
	if !ok {
		return nil, false
	}
	return func(p unsafe.Pointer, i int) error {
		if r.null(i) {
			return fmt.Errorf("dataframe: Scan: column %s is null at row %d, and a %s field cannot hold a null: make it a *%s", r.col, i, ft, ft)
		}
		return set(p, i)
	}, true
}

// valueSetter writes a non-null value of row i into the value at p, of
// type t.
func valueSetter(t reflect.Type, r *reader) (setter, bool) {
	switch {
	case t == timeType:
		if r.src != srcTime {
			return nil, false
		}
		return func(p unsafe.Pointer, i int) error { *(*time.Time)(p) = r.tm(i); return nil }, true
	case t == durationType:
		if r.src != srcDuration {
			return nil, false
		}
		return func(p unsafe.Pointer, i int) error { *(*time.Duration)(p) = time.Duration(r.i64(i)); return nil }, true
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if r.src != srcInt {
			return nil, false
		}
		store := intStore(t)
		if r.unsigned {
			wide := t.Kind() == reflect.Uint64 || t.Kind() == reflect.Uint
			return func(p unsafe.Pointer, i int) error {
				v := r.i64(i)
				switch {
				case v < 0 && wide: // past int64's range
					*(*uint64)(p) = uint64(v)
				case v < 0 || !store(p, v):
					return fmt.Errorf("dataframe: Scan: column %s at row %d holds %d, which a %s does not", r.col, i, uint64(v), t)
				}
				return nil
			}, true
		}
		return func(p unsafe.Pointer, i int) error {
			if v := r.i64(i); !store(p, v) {
				return fmt.Errorf("dataframe: Scan: column %s at row %d holds %d, which a %s does not", r.col, i, v, t)
			}
			return nil
		}, true
	case reflect.Float32, reflect.Float64:
		var get func(i int) float64
		switch r.src {
		case srcFloat, srcDecimal:
			get = r.f64
		case srcInt:
			get = func(i int) float64 { return float64(r.i64(i)) }
			if r.unsigned {
				get = func(i int) float64 { return float64(uint64(r.i64(i))) }
			}
		default:
			return nil, false
		}
		if t.Kind() == reflect.Float32 {
			return func(p unsafe.Pointer, i int) error { *(*float32)(p) = float32(get(i)); return nil }, true
		}
		return func(p unsafe.Pointer, i int) error { *(*float64)(p) = get(i); return nil }, true
	case reflect.String:
		if r.src != srcString && r.src != srcDecimal {
			return nil, false
		}
		return func(p unsafe.Pointer, i int) error { *(*string)(p) = r.str(i); return nil }, true
	case reflect.Bool:
		if r.src != srcBool {
			return nil, false
		}
		return func(p unsafe.Pointer, i int) error { *(*bool)(p) = r.b(i); return nil }, true
	}
	return nil, false
}

// intStore writes v into an integer of type t at p, reporting whether it fits.
func intStore(t reflect.Type) func(p unsafe.Pointer, v int64) bool {
	switch t.Kind() {
	case reflect.Int8:
		return func(p unsafe.Pointer, v int64) bool {
			*(*int8)(p) = int8(v)
			return v >= math.MinInt8 && v <= math.MaxInt8
		}
	case reflect.Int16:
		return func(p unsafe.Pointer, v int64) bool {
			*(*int16)(p) = int16(v)
			return v >= math.MinInt16 && v <= math.MaxInt16
		}
	case reflect.Int32:
		return func(p unsafe.Pointer, v int64) bool {
			*(*int32)(p) = int32(v)
			return v >= math.MinInt32 && v <= math.MaxInt32
		}
	case reflect.Int, reflect.Int64:
		return func(p unsafe.Pointer, v int64) bool { *(*int64)(p) = v; return true }
	case reflect.Uint8:
		return func(p unsafe.Pointer, v int64) bool { *(*uint8)(p) = uint8(v); return v >= 0 && v <= math.MaxUint8 }
	case reflect.Uint16:
		return func(p unsafe.Pointer, v int64) bool { *(*uint16)(p) = uint16(v); return v >= 0 && v <= math.MaxUint16 }
	case reflect.Uint32:
		return func(p unsafe.Pointer, v int64) bool { *(*uint32)(p) = uint32(v); return v >= 0 && v <= math.MaxUint32 }
	default: // uint, uint64
		return func(p unsafe.Pointer, v int64) bool { *(*uint64)(p) = uint64(v); return v >= 0 }
	}
}

// allocator makes zero values of t for pointer fields: typed for the
// common types, so that a row costs no reflection.
func allocator(t reflect.Type) func() unsafe.Pointer {
	switch t {
	case reflect.TypeFor[int64]():
		return newOf[int64]
	case reflect.TypeFor[int]():
		return newOf[int]
	case reflect.TypeFor[int32]():
		return newOf[int32]
	case reflect.TypeFor[float64]():
		return newOf[float64]
	case reflect.TypeFor[string]():
		return newOf[string]
	case reflect.TypeFor[bool]():
		return newOf[bool]
	case timeType:
		return newOf[time.Time]
	}
	return func() unsafe.Pointer { return reflect.New(t).UnsafePointer() }
}

func newOf[T any]() unsafe.Pointer { return unsafe.Pointer(new(T)) }
