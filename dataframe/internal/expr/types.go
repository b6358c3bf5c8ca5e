package expr

// How each column type meets the others, in one place: the type two
// operands meet in (CommonType, what comparisons, choices and IsIn use),
// the form kernels compute a type in (PhysicalKind), and which casts there
// are between types and which kernel does each (CastRule). A new column
// type's rules are here; its kernels are internal/kernel's.

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
)

// CommonType is the type a and b meet in, or false where they do not: ints
// the narrowest that holds both (NumberSupertype), any float makes float64, decimals take the larger scale
// (with ints as scale 0), dates meet timestamps as timestamps, timestamps
// and durations take the finer unit; a string meets a date or timestamp
// (a literal written as one). Nulls meet anything as the other's type.
func CommonType(a, b arrow.DataType) (arrow.DataType, bool) {
	ka, kb := KindOfType(a), KindOfType(b)
	switch {
	case ka == kernel.KindNull:
		return plainOf(b), true
	case kb == kernel.KindNull:
		return plainOf(a), true
	case ka == kernel.KindString && kb == kernel.KindString:
		return kernel.String, true
	case ka == kernel.KindBool && kb == kernel.KindBool:
		return kernel.Bool, true
	case ka == kernel.KindFloat && IsNumberKind(kb), kb == kernel.KindFloat && IsNumberKind(ka):
		return kernel.Float64, true
	case ka == kernel.KindInt && kb == kernel.KindInt:
		return NumberSupertype(a, b), true
	case ka == kernel.KindDecimal && IsNumberKind(kb), kb == kernel.KindDecimal && IsNumberKind(ka):
		if PhysicalKind(a) == kernel.KindFloat || PhysicalKind(b) == kernel.KindFloat {
			return kernel.Float64, true // a decimal too wide to compute exactly
		}
		return &arrow.Decimal128Type{Precision: DecimalMaxPrecision, Scale: max(scaleOf(a), scaleOf(b))}, true
	case ka == kernel.KindDate && kb == kernel.KindDate,
		ka == kernel.KindDate && kb == kernel.KindString, ka == kernel.KindString && kb == kernel.KindDate:
		return arrow.FixedWidthTypes.Date32, true
	case ka == kernel.KindTimestamp || kb == kernel.KindTimestamp:
		ta, oka := a.(*arrow.TimestampType)
		tb, okb := b.(*arrow.TimestampType)
		switch {
		case oka && okb:
			return &arrow.TimestampType{Unit: max(ta.Unit, tb.Unit), TimeZone: ta.TimeZone}, true
		case oka && (kb == kernel.KindDate || kb == kernel.KindString):
			return ta, true
		case okb && (ka == kernel.KindDate || ka == kernel.KindString):
			return tb, true
		}
	case ka == kernel.KindDuration && kb == kernel.KindDuration:
		return &arrow.DurationType{Unit: max(a.(*arrow.DurationType).Unit, b.(*arrow.DurationType).Unit)}, true
	}
	return nil, false
}

// IsNumberKind reports whether k is a number's kind (the type table's
// Numeric).
func IsNumberKind(k kernel.Kind) bool { return k.Logical().Numeric }

// plainOf is t with dictionary strings plain.
func plainOf(t arrow.DataType) arrow.DataType { return kernel.PlainType(t) }

// PhysicalKind is the kind kernels compute a type's physical form as.
func PhysicalKind(t arrow.DataType) kernel.Kind {
	switch KindOfType(t) {
	case kernel.KindDate, kernel.KindTimestamp, kernel.KindDuration:
		return kernel.KindInt
	case kernel.KindDecimal:
		if t.(*arrow.Decimal128Type).Precision > DecimalMaxPrecision {
			return kernel.KindFloat
		}
		return kernel.KindInt
	}
	return KindOfType(t)
}

// Caster converts a column to a cast's target; strict, a value that does
// not convert is an error, else null.
type Caster func(col arrow.Array, to arrow.DataType, strict bool) (arrow.Array, error)

// CastRule says how a column of type from casts to type to, or why not:
// numbers, bools and strings among int64, float64, utf8 and bool (the
// kernel's Cast); decimals to float64, int64 (truncated) and other
// decimals; ints and floats to decimals (rounded half away from zero);
// dates and timestamps to each other and to strings; durations to other
// units (floored where coarser, as timestamps); dates, timestamps and
// durations to numbers, as the count they hold (days since 1970-01-01,
// units since the epoch, units), as Polars and Arrow; strings to any
// number type, to decimals, to durations (1m30s) and in ISO 8601 to dates
// and timestamps (kernel.ParseText).
func CastRule(from, to arrow.DataType) (Caster, error) {
	kf, kt := KindOfType(from), KindOfType(to)
	basic := func(k kernel.Kind) bool {
		return k == kernel.KindInt || k == kernel.KindFloat || k == kernel.KindString || k == kernel.KindBool || k == kernel.KindNull
	}
	switch {
	case kf == kernel.KindNull:
		return func(col arrow.Array, to arrow.DataType, _ bool) (arrow.Array, error) {
			return Retype(kernel.Nulls(PhysicalKind(to), col.Len()), to), nil
		}, nil
	case basic(kf) && basic(kt) && isKernelType(to):
		return func(col arrow.Array, to arrow.DataType, strict bool) (arrow.Array, error) {
			return kernel.Cast(col, kt, strict)
		}, nil
	case basic(kf) && (kt == kernel.KindInt || kt == kernel.KindFloat):
		return castNarrow, nil
	case kt == kernel.KindString && (kf == kernel.KindDate || kf == kernel.KindTimestamp || kf == kernel.KindDuration || kf == kernel.KindDecimal):
		return castToText, nil
	case kf == kernel.KindDecimal && (kt == kernel.KindFloat || kt == kernel.KindInt || kt == kernel.KindDecimal) && isKernelType(to) || kf == kernel.KindDecimal && kt == kernel.KindDecimal:
		return castDecimal, nil
	case (kf == kernel.KindInt || kf == kernel.KindFloat) && kt == kernel.KindDecimal:
		return castDecimal, nil
	case (kf == kernel.KindDate || kf == kernel.KindTimestamp) && (kt == kernel.KindDate || kt == kernel.KindTimestamp):
		return castTimes, nil
	case (kf == kernel.KindDate || kf == kernel.KindTimestamp || kf == kernel.KindDuration) && (kt == kernel.KindInt || kt == kernel.KindFloat):
		return castCount, nil
	case kf == kernel.KindDuration && kt == kernel.KindDuration:
		return castDurations, nil
	case kf == kernel.KindString && kt != kernel.KindNull:
		return func(col arrow.Array, to arrow.DataType, strict bool) (arrow.Array, error) {
			return kernel.ParseText(col, to, "", strict)
		}, nil
	}
	return nil, fmt.Errorf("cannot cast %s to %s", TypeName(from), TypeName(to))
}
