package kernel

import (
	"math"
	"math/rand"
	"testing"
)

var allArithOps = []ArithOp{Add, Sub, Mul, Div}

// refArith is Arith on plain values: int64 (wrapping) for + - * of two
// ints, float64 otherwise; a null on either side is null.
func refArith(a, b col, op ArithOp) col {
	n := a.len()
	out := col{kind: KindInt, valid: make([]bool, n)}
	if a.kind == KindFloat || b.kind == KindFloat || op == Div {
		out.kind = KindFloat
	}
	out.ints, out.flts = make([]int64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		if !a.valid[i] || !b.valid[i] {
			continue
		}
		out.valid[i] = true
		if out.kind == KindInt {
			x, y := a.ints[i], b.ints[i]
			switch op {
			case Add:
				out.ints[i] = x + y
			case Sub:
				out.ints[i] = x - y
			case Mul:
				out.ints[i] = x * y
			}
			continue
		}
		x, y := asFloat(a, i), asFloat(b, i)
		switch op {
		case Add:
			out.flts[i] = x + y
		case Sub:
			out.flts[i] = x - y
		case Mul:
			out.flts[i] = x * y
		case Div:
			out.flts[i] = x / y
		}
	}
	return out
}

var arithTypePairs = [][2]colType{{tInt, tInt}, {tInt, tFloat}, {tFloat, tInt}, {tFloat, tFloat}}

func TestArithMatchesReference(t *testing.T) {
	for _, pair := range arithTypePairs {
		for _, form := range operandForms {
			t.Run(pair[0].String()+"-"+pair[1].String()+"/"+form.name, func(t *testing.T) {
				forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
					a, b := form.make(rng, pair[0], pair[1], s)
					defer release(a.rows, b.rows)
					for _, op := range allArithOps {
						got, err := Arith(a.d, b.d, op, s.n)
						if err != nil {
							t.Fatalf("%s: %v", op, err)
						}
						checkCol(t, op.String(), readCol(t, got), refArith(a.rows, b.rows, op))
						got.Release()
					}
				})
			})
		}
	}
}

func TestArithExamples(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		name string
		a, b Datum
		op   ArithOp
		want *col
	}{
		{"int+int", Col(ints(1, 2, nil)), Col(ints(10, nil, 30)), Add, intCol(11, nil, nil)},
		{"int-scalar", Col(ints(1, 2)), Scalar(int64(5)), Sub, intCol(-4, -3)},
		{"scalar-int", Scalar(int64(5)), Col(ints(1, 2)), Sub, intCol(4, 3)},
		{"int*int wraps", Col(ints(math.MaxInt64)), Scalar(int64(2)), Mul, intCol(-2)},
		{"int+int wraps", Col(ints(math.MaxInt64)), Scalar(int64(1)), Add, intCol(math.MinInt64)},
		{"int/int is float", Col(ints(7, 1, nil)), Col(ints(2, 3, 1)), Div, floatCol(3.5, 1.0/3, nil)},
		{"int/0", Col(ints(1, -1, 0)), Scalar(int64(0)), Div, floatCol(inf, -inf, nan)},
		{"float/0", Col(floats(1.5, -2.0, 0.0)), Col(floats(0.0, 0.0, 0.0)), Div, floatCol(inf, -inf, nan)},
		{"x/-0", Col(floats(1.0)), Scalar(math.Copysign(0, -1)), Div, floatCol(-inf)},
		{"scalar/col", Scalar(1.0), Col(ints(0, 2)), Div, floatCol(inf, 0.5)},
		{"int+float", Col(ints(1, 2)), Scalar(0.5), Add, floatCol(1.5, 2.5)},
		{"float*int", Col(floats(0.5, nil)), Col(ints(4, 4)), Mul, floatCol(2.0, nil)},
		{"null literal", Datum{}, Col(ints(1, 2)), Add, intCol(nil, nil)},
		{"null literal / int", Col(ints(1, 2)), Datum{}, Div, floatCol(nil, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer failOnPanic(t)
			got, err := Arith(tt.a, tt.b, tt.op, tt.want.len())
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			checkCol(t, tt.name, readCol(t, got), *tt.want)
		})
	}
}

// intCol and floatCol write a wanted column; nil is a null row.
func intCol(vals ...any) *col {
	c := &col{kind: KindInt}
	for _, v := range vals {
		c.valid = append(c.valid, v != nil)
		if v == nil {
			c.ints = append(c.ints, 0)
		} else {
			c.ints = append(c.ints, toInt64(v))
		}
	}
	return c
}

func floatCol(vals ...any) *col {
	c := &col{kind: KindFloat}
	for _, v := range vals {
		c.valid = append(c.valid, v != nil)
		f, _ := v.(float64)
		c.flts = append(c.flts, f)
	}
	return c
}

func TestArithNonNumericFails(t *testing.T) {
	tests := []struct {
		name string
		a, b Datum
	}{
		{"string col", Col(strs("1")), Col(ints(1))},
		{"dict col", Col(ints(1)), Col(dictStrs([]string{"a"}, "a"))},
		{"bool col", Col(bools(true)), Scalar(int64(1))},
		{"string scalar", Col(floats(1.0)), Scalar("1")},
		{"bool scalar", Scalar(true), Col(ints(1))},
	}
	for _, tt := range tests {
		for _, op := range allArithOps {
			t.Run(tt.name+"/"+op.String(), func(t *testing.T) {
				defer failOnPanic(t)
				if got, err := Arith(tt.a, tt.b, op, 1); err == nil {
					got.Release()
					t.Errorf("Arith(%s) succeeded, want an error", tt.name)
				}
			})
		}
	}
}

func TestArithResultKind(t *testing.T) {
	tests := []struct {
		op   ArithOp
		a, b Kind
		want Kind
	}{
		{Add, KindInt, KindInt, KindInt},
		{Sub, KindInt, KindInt, KindInt},
		{Mul, KindInt, KindInt, KindInt},
		{Div, KindInt, KindInt, KindFloat},
		{Add, KindInt, KindFloat, KindFloat},
		{Mul, KindFloat, KindInt, KindFloat},
		{Sub, KindNull, KindInt, KindInt},
		{Add, KindNull, KindFloat, KindFloat},
		{Div, KindNull, KindNull, KindFloat},
	}
	for _, tt := range tests {
		got, err := tt.op.ResultKind(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("%s.ResultKind(%s, %s) = %s, %v; want %s", tt.op, tt.a, tt.b, got, err, tt.want)
		}
	}
	for _, k := range []Kind{KindString, KindBool} {
		if _, err := Add.ResultKind(KindInt, k); err == nil {
			t.Errorf("ResultKind(int64, %s) succeeded, want an error", k)
		}
		if _, err := Div.ResultKind(k, KindFloat); err == nil {
			t.Errorf("ResultKind(%s, float64) succeeded, want an error", k)
		}
	}
	want := []string{"+", "-", "*", "/"}
	for i, op := range allArithOps {
		if op.String() != want[i] {
			t.Errorf("ArithOp(%d).String() = %q, want %q", op, op.String(), want[i])
		}
	}
}
