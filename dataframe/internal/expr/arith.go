package expr

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/kernel"
)

// arithForm is how an arithmetic operation computes, by its operands' types.
type arithForm uint8

const (
	arithNumbers  arithForm = iota // ints and floats, as the kernel types them
	arithDecimal                   // exact, on unscaled int64s
	arithFloat                     // a decimal with a float, or divided: float64
	arithMonths                    // a date or timestamp moved by calendar months
	arithDateDays                  // a date moved by a duration, in whole days
	arithDateDiff                  // date - date: a duration
	arithTimes                     // timestamps and durations, in the result's unit
	arithRatio                     // duration / duration: float64, in a common unit
)

// arithRule types a op b and says how it computes: numbers as the kernels
// type them (int64 for + - * of ints, float64 otherwise and for /);
// decimals exactly (+ and - at the larger scale, * at the sum of scales,
// precision at most 18), or as float64 with a float or for /; a date plus
// or minus a duration or months is a date, date - date a duration in ms; a
// timestamp plus or minus a duration or months keeps its type, timestamp -
// timestamp is a duration; durations add, multiply by integers, and divide
// by durations into a float64 ratio.
func arithRule(op kernel.ArithOp, a, b arrow.DataType) (arrow.DataType, arithForm, error) {
	ka, kb := KindOfType(a), KindOfType(b)
	months := func(t arrow.DataType) bool { return t.ID() == arrow.INTERVAL_MONTHS }
	addSub := op == kernel.Add || op == kernel.Sub
	switch {
	case IsNumberKind(ka) && IsNumberKind(kb) || ka == kernel.KindNull && IsNumberKind(kb) || kb == kernel.KindNull && IsNumberKind(ka):
		if ka != kernel.KindDecimal && kb != kernel.KindDecimal {
			k, err := op.ResultKind(PhysicalKind(a), PhysicalKind(b))
			if err != nil {
				return nil, 0, err
			}
			if k == kernel.KindFloat && op == kernel.Div && (ka != kernel.KindFloat || kb != kernel.KindFloat) {
				return kernel.Float64, arithNumbers, nil // true division of ints
			}
			return NumberSupertype(a, b), arithNumbers, nil
		}
		if op == kernel.Div || ka == kernel.KindFloat || kb == kernel.KindFloat || PhysicalKind(a) == kernel.KindFloat || PhysicalKind(b) == kernel.KindFloat {
			return kernel.Float64, arithFloat, nil
		}
		pa, sa := decimalShape(a)
		pb, sb := decimalShape(b)
		if op == kernel.Mul {
			if sa+sb > DecimalMaxPrecision {
				return nil, 0, fmt.Errorf("the product's scale %d is over %d: cast to float64", sa+sb, DecimalMaxPrecision)
			}
			return &arrow.Decimal128Type{Precision: min(DecimalMaxPrecision, pa+pb), Scale: sa + sb}, arithDecimal, nil
		}
		s := max(sa, sb)
		return &arrow.Decimal128Type{Precision: min(DecimalMaxPrecision, max(pa-sa, pb-sb)+s+1), Scale: s}, arithDecimal, nil
	case ka == kernel.KindDate && months(b) && addSub, months(a) && kb == kernel.KindDate && op == kernel.Add:
		return arrow.FixedWidthTypes.Date32, arithMonths, nil
	case ka == kernel.KindTimestamp && months(b) && addSub:
		return a, arithMonths, nil
	case months(a) && kb == kernel.KindTimestamp && op == kernel.Add:
		return b, arithMonths, nil
	case ka == kernel.KindDate && kb == kernel.KindDuration && addSub, ka == kernel.KindDuration && kb == kernel.KindDate && op == kernel.Add:
		return arrow.FixedWidthTypes.Date32, arithDateDays, nil
	case ka == kernel.KindDate && kb == kernel.KindDate && op == kernel.Sub:
		return arrow.FixedWidthTypes.Duration_ms, arithDateDiff, nil
	case ka == kernel.KindTimestamp && kb == kernel.KindDuration && addSub:
		return a, arithTimes, nil
	case ka == kernel.KindDuration && kb == kernel.KindTimestamp && op == kernel.Add:
		return b, arithTimes, nil
	case ka == kernel.KindTimestamp && kb == kernel.KindTimestamp && op == kernel.Sub:
		t, _ := CommonType(a, b)
		return &arrow.DurationType{Unit: t.(*arrow.TimestampType).Unit}, arithTimes, nil
	case ka == kernel.KindDuration && kb == kernel.KindDuration && addSub:
		t, _ := CommonType(a, b)
		return t, arithTimes, nil
	case ka == kernel.KindDuration && kb == kernel.KindDuration && op == kernel.Div:
		return kernel.Float64, arithRatio, nil // a trip's length / time.Minute: its minutes
	case ka == kernel.KindDuration && kb == kernel.KindInt && op == kernel.Mul:
		return a, arithTimes, nil
	case ka == kernel.KindInt && kb == kernel.KindDuration && op == kernel.Mul:
		return b, arithTimes, nil
	}
	return nil, 0, fmt.Errorf("%s does not apply to %s and %s", op, TypeName(a), TypeName(b))
}

// NumberSupertype is the type two numbers compute in, as Polars' supertype:
// two ints the wider (an unsigned one meeting a signed one of its width or
// narrower, the next wider signed type; uint64 with a signed type, int64),
// float32 with float32 or an int of 16 bits or fewer float32, any other
// float float64; null fits anything.
func NumberSupertype(a, b arrow.DataType) arrow.DataType {
	ka, kb := KindOfType(a), KindOfType(b)
	switch {
	case ka == kernel.KindNull:
		return plainOf(widenNull(b))
	case kb == kernel.KindNull:
		return plainOf(widenNull(a))
	case ka == kernel.KindFloat || kb == kernel.KindFloat:
		small := func(t arrow.DataType, k kernel.Kind) bool {
			return t.ID() == arrow.FLOAT32 || k == kernel.KindInt && bitWidth(t) <= 16
		}
		if small(a, ka) && small(b, kb) && (a.ID() == arrow.FLOAT32 || b.ID() == arrow.FLOAT32) {
			return arrow.PrimitiveTypes.Float32
		}
		return kernel.Float64
	}
	sa, sb := isSigned(a), isSigned(b)
	wa, wb := bitWidth(a), bitWidth(b)
	switch {
	case sa == sb:
		return intType(max(wa, wb), sa)
	case !sa && wa >= wb, !sb && wb >= wa: // the unsigned one is at least as wide
		return intType(min(2*max(wa, wb), 64), true)
	}
	return intType(max(wa, wb), true)
}

// widenNull is t, or int64 for the null type (a null literal's).
func widenNull(t arrow.DataType) arrow.DataType {
	if t.ID() == arrow.NULL {
		return kernel.Int64
	}
	return t
}

func bitWidth(t arrow.DataType) int {
	if fw, ok := t.(arrow.FixedWidthDataType); ok {
		return fw.BitWidth()
	}
	return 64
}

func isSigned(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return false
	}
	return true
}

// intType is the integer type of a width and signedness.
func intType(bits int, signed bool) arrow.DataType {
	if signed {
		return map[int]arrow.DataType{8: arrow.PrimitiveTypes.Int8, 16: arrow.PrimitiveTypes.Int16, 32: arrow.PrimitiveTypes.Int32, 64: arrow.PrimitiveTypes.Int64}[bits]
	}
	return map[int]arrow.DataType{8: arrow.PrimitiveTypes.Uint8, 16: arrow.PrimitiveTypes.Uint16, 32: arrow.PrimitiveTypes.Uint32, 64: arrow.PrimitiveTypes.Uint64}[bits]
}

// narrowTo gives a kernel's int64 or float64 result the narrower number
// type t (integers wrapping, as Polars' do on overflow); other results and
// types are as they are.
func narrowTo(col arrow.Array, t arrow.DataType) arrow.Array {
	if arrow.TypeEqual(col.DataType(), t) {
		return col
	}
	switch c := col.(type) {
	case *array.Int64:
		if out, ok := kernel.FromInt64(t, c.Int64Values(), kernel.AlignedValid(c)); ok {
			return out
		}
	case *array.Float64:
		if t.ID() == arrow.FLOAT32 {
			out := make([]float32, c.Len())
			for i, v := range c.Float64Values() {
				out[i] = float32(v)
			}
			return kernel.NewFixed(t, out, kernel.AlignedValid(c))
		}
	}
	return col
}

// decimalShape is a decimal's precision and scale; an integer counts as
// decimal(18, 0).
func decimalShape(t arrow.DataType) (int32, int32) {
	if d, ok := t.(*arrow.Decimal128Type); ok {
		return d.Precision, d.Scale
	}
	return DecimalMaxPrecision, 0
}

// evalArith computes a op b by the form arithRule gives.
func evalArith(c *evalCall, op kernel.ArithOp, a, b value) (arrow.Array, error) {
	t, form, err := arithRule(op, a.typ, b.typ)
	if err != nil {
		return nil, err
	}
	x, y := a.asDatum(), b.asDatum()
	switch form {
	case arithNumbers:
		col, err := arithColumns(c, op, x, y)
		if err != nil {
			return nil, err
		}
		return narrowTo(col, t), nil
	case arithFloat:
		if x, err = coerce(c, a, kernel.Float64); err == nil {
			y, err = coerce(c, b, kernel.Float64)
		}
		if err != nil {
			return nil, err
		}
		return arithColumns(c, op, x, y)
	case arithDecimal:
		if op == kernel.Mul { // each at its own scale: the product's is their sum
			x, y = intsOf(x), intsOf(y)
		} else if x, err = coerce(c, a, t); err == nil {
			y, err = coerce(c, b, t)
		}
		if err != nil {
			return nil, err
		}
	case arithMonths:
		date, n := a, y
		if KindOfType(a.typ) != kernel.KindDate && KindOfType(a.typ) != kernel.KindTimestamp {
			date, n = b, x
		}
		months, _ := n.Scalar.(int64)
		if op == kernel.Sub {
			months = -months
		}
		return addMonths(c, date, months)
	case arithDateDays:
		days, dur := a, b
		if KindOfType(a.typ) == kernel.KindDuration {
			days, dur = b, a
		}
		d, _ := coerce(c, dur, arrow.FixedWidthTypes.Duration_s)
		d = mapInts(d, func(s int64) int64 { return FloorDiv(s, 86400) })
		x, y = intsOf(days.asDatum()), d
		if KindOfType(a.typ) == kernel.KindDuration {
			x, y = y, x
		}
	case arithDateDiff:
		x, y = intsOf(x), intsOf(y)
		col, err := arithColumns(c, op, x, y)
		if err != nil {
			return nil, err
		}
		return Retype(mapInts(kernel.Col(col), func(d int64) int64 { return d * 86400e3 }).Array, t), nil
	case arithRatio:
		common, _ := CommonType(a.typ, b.typ)
		if x, err = coerce(c, a, common); err == nil {
			y, err = coerce(c, b, common)
		}
		if err != nil {
			return nil, err
		}
		return arithColumns(c, op, intsOf(x), intsOf(y))
	case arithTimes:
		unit := timeUnit(t)
		if x, err = coerce(c, a, unitType(a.typ, unit)); err == nil {
			y, err = coerce(c, b, unitType(b.typ, unit))
		}
		if err != nil {
			return nil, err
		}
	}
	col, err := arithColumns(c, op, x, y)
	if err != nil {
		return nil, err
	}
	if form == arithDecimal {
		if ints, ok := col.(*array.Int64); ok {
			if err := kernel.ArithExact(x, y, op, ints, maxDecimal); err != nil {
				col.Release()
				return nil, fmt.Errorf("%s of decimals gives more than %d digits (%s): %w; cast an operand to float64",
					op, DecimalMaxPrecision, t, err)
			}
		}
	}
	return Retype(col, t), nil
}

// maxDecimal is the largest unscaled value of a decimal of precision
// DecimalMaxPrecision: 18 nines.
const maxDecimal = 999_999_999_999_999_999

// arithColumns runs the kernel (on the GPU where the task has one).
func arithColumns(c *evalCall, op kernel.ArithOp, x, y kernel.Datum) (arrow.Array, error) {
	if x.Array == nil && y.Array == nil {
		x = kernel.Col(broadcast(x.Scalar, c.rows))
	}
	if col, ok, err := gpuArith(c.gpu, x, y, op); ok || err != nil {
		return col, err
	}
	return kernel.Arith(x, y, op, c.rows)
}

// timeUnit is a timestamp's or duration's unit.
func timeUnit(t arrow.DataType) arrow.TimeUnit {
	switch t := t.(type) {
	case *arrow.TimestampType:
		return t.Unit
	case *arrow.DurationType:
		return t.Unit
	}
	return arrow.Nanosecond
}

// unitType is t (a timestamp or duration) in unit u; other types are
// themselves.
func unitType(t arrow.DataType, u arrow.TimeUnit) arrow.DataType {
	switch t := t.(type) {
	case *arrow.TimestampType:
		return &arrow.TimestampType{Unit: u, TimeZone: t.TimeZone}
	case *arrow.DurationType:
		return &arrow.DurationType{Unit: u}
	}
	return t
}

// addMonths moves a date or timestamp value by months.
func addMonths(c *evalCall, v value, months int64) (arrow.Array, error) {
	vals := intsOf(kernel.Col(c.array(v))).Array
	x := vals.(*array.Int64).Int64Values()
	out := make([]int64, len(x))
	switch t := v.typ.(type) {
	case *arrow.Date32Type:
		for i, d := range x {
			out[i] = kernel.AddMonths(d, months)
		}
	case *arrow.TimestampType:
		loc, err := kernel.Location(t.TimeZone)
		if err != nil {
			return nil, err
		}
		out = kernel.AddMonthsTimes(x, t.Unit, loc, months)
	default:
		return nil, fmt.Errorf("cannot add months to %s", TypeName(v.typ))
	}
	return Retype(kernel.NewInt64(out, kernel.AlignedValid(vals)), v.typ), nil
}
