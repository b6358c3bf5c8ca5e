package dataframe

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
)

// arithRule types a op b and says how it computes: numbers as the kernels
// type them (int64 for + - * of ints, float64 otherwise and for /);
// decimals exactly (+ and - at the larger scale, * at the sum of scales,
// precision at most 18), or as float64 with a float or for /; a date plus
// or minus a duration or months is a date, date - date a duration in ms; a
// timestamp plus or minus a duration or months keeps its type, timestamp -
// timestamp is a duration; durations add, and multiply by integers.
func arithRule(op kernel.ArithOp, a, b arrow.DataType) (arrow.DataType, arithForm, error) {
	ka, kb := kindOfType(a), kindOfType(b)
	months := func(t arrow.DataType) bool { return t.ID() == arrow.INTERVAL_MONTHS }
	addSub := op == kernel.Add || op == kernel.Sub
	switch {
	case isNumberKind(ka) && isNumberKind(kb) || ka == kernel.KindNull && isNumberKind(kb) || kb == kernel.KindNull && isNumberKind(ka):
		if ka != kernel.KindDecimal && kb != kernel.KindDecimal {
			k, err := op.ResultKind(physicalKind(a), physicalKind(b))
			return kindType(k), arithNumbers, err
		}
		if op == kernel.Div || ka == kernel.KindFloat || kb == kernel.KindFloat || physicalKind(a) == kernel.KindFloat || physicalKind(b) == kernel.KindFloat {
			return kernel.Float64, arithFloat, nil
		}
		pa, sa := decimalShape(a)
		pb, sb := decimalShape(b)
		if op == kernel.Mul {
			if sa+sb > decimalMaxPrecision {
				return nil, 0, fmt.Errorf("the product's scale %d is over %d: cast to float64", sa+sb, decimalMaxPrecision)
			}
			return &arrow.Decimal128Type{Precision: min(decimalMaxPrecision, pa+pb), Scale: sa + sb}, arithDecimal, nil
		}
		s := max(sa, sb)
		return &arrow.Decimal128Type{Precision: min(decimalMaxPrecision, max(pa-sa, pb-sb)+s+1), Scale: s}, arithDecimal, nil
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
		t, _ := commonType(a, b)
		return &arrow.DurationType{Unit: t.(*arrow.TimestampType).Unit}, arithTimes, nil
	case ka == kernel.KindDuration && kb == kernel.KindDuration && addSub:
		t, _ := commonType(a, b)
		return t, arithTimes, nil
	case ka == kernel.KindDuration && kb == kernel.KindInt && op == kernel.Mul:
		return a, arithTimes, nil
	case ka == kernel.KindInt && kb == kernel.KindDuration && op == kernel.Mul:
		return b, arithTimes, nil
	}
	return nil, 0, fmt.Errorf("%s does not apply to %s and %s", op, typeName(a), typeName(b))
}

// decimalShape is a decimal's precision and scale; an integer counts as
// decimal(18, 0).
func decimalShape(t arrow.DataType) (int32, int32) {
	if d, ok := t.(*arrow.Decimal128Type); ok {
		return d.Precision, d.Scale
	}
	return decimalMaxPrecision, 0
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
		return arithColumns(c, op, x, y)
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
		if kindOfType(a.typ) != kernel.KindDate && kindOfType(a.typ) != kernel.KindTimestamp {
			date, n = b, x
		}
		months, _ := n.Scalar.(int64)
		if op == kernel.Sub {
			months = -months
		}
		return addMonths(c, date, months)
	case arithDateDays:
		days, dur := a, b
		if kindOfType(a.typ) == kernel.KindDuration {
			days, dur = b, a
		}
		d, _ := coerce(c, dur, arrow.FixedWidthTypes.Duration_s)
		d = mapInts(d, func(s int64) int64 { return floorDiv(s, 86400) })
		x, y = intsOf(days.asDatum()), d
		if kindOfType(a.typ) == kernel.KindDuration {
			x, y = y, x
		}
	case arithDateDiff:
		x, y = intsOf(x), intsOf(y)
		col, err := arithColumns(c, op, x, y)
		if err != nil {
			return nil, err
		}
		return retype(mapInts(kernel.Col(col), func(d int64) int64 { return d * 86400e3 }).Array, t), nil
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
	return retype(col, t), nil
}

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
		return nil, fmt.Errorf("cannot add months to %s", typeName(v.typ))
	}
	return retype(kernel.NewInt64(out, validCopy(vals)), v.typ), nil
}
