package expr

import (
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
)

// The function table's numeric functions (functions.go describes the
// table; arith.go the rules of arithmetic's types).

// ---- numbers

func numberFunctions() []*function {
	var out []*function
	for op := kernel.Add; op <= kernel.Div; op++ {
		out = append(out, &function{name: op.String(), arity: 2, format: infix,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				t, _, err := arithRule(op, in[0], in[1])
				if err != nil {
					return nil, fmt.Errorf("cannot compute %s: %s %s %s: %w", c.n, Describe(c.n.Args[0], in[0]), op, Describe(c.n.Args[1], in[1]), err)
				}
				return t, nil
			},
			eval: func(c *evalCall, in []value) (value, error) {
				col, err := evalArith(c, op, in[0], in[1])
				return c.column(col), err
			}})
	}
	binary := func(name string, kernelFn func(a, b kernel.Datum, n int) (arrow.Array, error), result func(a, b arrow.DataType) arrow.DataType) *function {
		return &function{name: name, arity: 2, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				if err := needs(c, in, "numbers", isNumeric); err != nil {
					return nil, err
				}
				return result(in[0], in[1]), nil
			},
			eval: func(c *evalCall, in []value) (value, error) {
				col, err := kernelFn(in[0].asDatum(), in[1].asDatum(), c.rows)
				if err != nil {
					return value{}, err
				}
				return c.column(narrowTo(col, c.out)), nil
			}}
	}
	out = append(out,
		binary("mod", kernel.Mod, NumberSupertype),
		binary("pow", kernel.Pow, func(a, b arrow.DataType) arrow.DataType { return kernel.Float64 }))
	for op := kernel.Neg; op <= kernel.Ceil; op++ {
		out = append(out, &function{name: op.String(), arity: 1, format: callFormat,
			typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
				if KindOfType(in[0]) == kernel.KindDecimal {
					if op == kernel.Sqrt || op == kernel.Log || op == kernel.Exp {
						return kernel.Float64, nil
					}
					return in[0], nil // exact, at its own scale
				}
				k, err := op.ResultKind(KindOfType(in[0]))
				if err != nil {
					return nil, fmt.Errorf("%s needs a number, but %s is not", op, Describe(c.n.Args[0], in[0]))
				}
				if op == kernel.Neg && KindOfType(in[0]) == kernel.KindInt && !isSigned(in[0]) {
					// The negation of an unsigned integer is signed, one width
					// up (it wrapped in the operand's type: -61 as 65475).
					return intType(min(2*bitWidth(in[0]), 64), true), nil
				}
				if k == KindOfType(in[0]) && op != kernel.Sqrt && op != kernel.Log && op != kernel.Exp {
					return NumberSupertype(in[0], arrow.Null), nil // the operand's own type
				}
				return TypeOfKind(k), nil
			},
			eval: func(c *evalCall, in []value) (value, error) {
				x := c.array(in[0])
				if dt, ok := in[0].typ.(*arrow.Decimal128Type); ok {
					if op != kernel.Sqrt && op != kernel.Log && op != kernel.Exp {
						return c.column(decimalMath(c, in[0], dt, op)), nil
					}
					f, err := coerce(c, in[0], kernel.Float64)
					if err != nil {
						return value{}, err
					}
					x = c.array(value{datum: f, typ: kernel.Float64})
				}
				col, err := kernel.Math(x, op)
				if err != nil {
					return value{}, err
				}
				return c.column(narrowTo(col, c.out)), nil
			}})
	}
	return append(out, &function{name: "round", arity: 1, format: callFormat,
		typeOf: func(c *typeCall, in []arrow.DataType) (arrow.DataType, error) {
			if KindOfType(in[0]) == kernel.KindDecimal {
				return in[0], nil
			}
			if err := needs(c, in, "a number", isNumeric); err != nil {
				return nil, err
			}
			return NumberSupertype(in[0], arrow.Null), nil // the operand's own type
		},
		eval: func(c *evalCall, in []value) (value, error) {
			if dt, ok := in[0].typ.(*arrow.Decimal128Type); ok {
				return c.column(decimalRound(c, in[0], dt, int32(c.n.Int[0]))), nil
			}
			col, err := kernel.Round(kernel.Widen(c.array(in[0])), int(c.n.Int[0]))
			if err != nil {
				return value{}, err
			}
			return c.column(narrowTo(col, c.out)), nil
		}})
}

// decimalMath is Neg, Abs, Floor or Ceil of a decimal, exact on its
// unscaled values, in its own type.
func decimalMath(c *evalCall, v value, t *arrow.Decimal128Type, op kernel.MathOp) arrow.Array {
	unit := kernel.Pow10(t.Scale)
	f := map[kernel.MathOp]func(int64) int64{
		kernel.Neg:   func(x int64) int64 { return -x },
		kernel.Abs:   func(x int64) int64 { return max(x, -x) },
		kernel.Floor: func(x int64) int64 { return FloorDiv(x, unit) * unit },
		kernel.Ceil:  func(x int64) int64 { return -FloorDiv(-x, unit) * unit },
	}[op]
	return Retype(c.array(value{datum: mapInts(intsOf(v.asDatum()), f), typ: kernel.Int64}), t)
}

// decimalRound rounds a decimal to digits after the point, half away from
// zero, as pandas and DuckDB round decimals, in its own type.
func decimalRound(c *evalCall, v value, t *arrow.Decimal128Type, digits int32) arrow.Array {
	if digits >= t.Scale {
		return Retype(c.array(value{datum: intsOf(v.asDatum()), typ: kernel.Int64}), t)
	}
	m := kernel.Pow10(t.Scale - max(digits, t.Scale-DecimalMaxPrecision))
	round := func(x int64) int64 {
		q, r := x/m, x%m
		if 2*max(r, -r) >= m {
			if x < 0 {
				q--
			} else {
				q++
			}
		}
		return q * m
	}
	return Retype(c.array(value{datum: mapInts(intsOf(v.asDatum()), round), typ: kernel.Int64}), t)
}
