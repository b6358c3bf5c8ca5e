package kernel

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

var allCmpOps = []CmpOp{Eq, Ne, Lt, Le, Gt, Ge}

// opHolds says whether a op b holds given c, the sign of a-b.
func opHolds(c int, op CmpOp) bool {
	switch op {
	case Eq:
		return c == 0
	case Ne:
		return c != 0
	case Lt:
		return c < 0
	case Le:
		return c <= 0
	case Gt:
		return c > 0
	case Ge:
		return c >= 0
	}
	panic("bad op")
}

// refCompare is Compare done row by row on plain values: a null on either
// side is null; an int64 with a float64 compares as float64, where NaN
// makes every op false but !=.
func refCompare(a, b col, op CmpOp) (vals, valid []bool) {
	n := a.len()
	vals, valid = make([]bool, n), make([]bool, n)
	for i := 0; i < n; i++ {
		if !a.valid[i] || !b.valid[i] {
			continue
		}
		valid[i] = true
		switch {
		case a.kind == KindInt && b.kind == KindInt:
			vals[i] = opHolds(cmp.Compare(a.ints[i], b.ints[i]), op)
		case a.kind == KindString:
			vals[i] = opHolds(strings.Compare(a.strs[i], b.strs[i]), op)
		case a.kind == KindBool:
			vals[i] = (a.bools[i] == b.bools[i]) == (op == Eq)
		default:
			x, y := asFloat(a, i), asFloat(b, i)
			if x != x || y != y {
				vals[i] = op == Ne
				continue
			}
			c := 0
			if x < y {
				c = -1
			} else if x > y {
				c = 1
			}
			vals[i] = opHolds(c, op)
		}
	}
	return vals, valid
}

func asFloat(c col, i int) float64 {
	if c.kind == KindInt {
		return float64(c.ints[i])
	}
	return c.flts[i]
}

// checkMask compares a Mask with wanted values and validity, row by row,
// and checks that Vals and Valid hold only 0 and 1.
func checkMask(t *testing.T, what string, m Mask, wantVals, wantValid []bool) {
	t.Helper()
	n := len(wantVals)
	if len(m.Vals) != n {
		t.Errorf("%s: len(Vals) = %d, want %d", what, len(m.Vals), n)
		return
	}
	if m.Valid != nil && len(m.Valid) != n {
		t.Errorf("%s: len(Valid) = %d, want %d or nil", what, len(m.Valid), n)
		return
	}
	bad := 0
	for i := 0; i < n; i++ {
		gotValid := m.Valid == nil || m.Valid[i] == 1
		var msg string
		switch {
		case m.Vals[i] > 1:
			msg = fmt.Sprintf("Vals holds %d, want 0 or 1", m.Vals[i])
		case m.Valid != nil && m.Valid[i] > 1:
			msg = fmt.Sprintf("Valid holds %d, want 0 or 1", m.Valid[i])
		case gotValid != wantValid[i]:
			msg = fmt.Sprintf("valid %v, want %v", gotValid, wantValid[i])
		case gotValid && (m.Vals[i] == 1) != wantVals[i]:
			msg = fmt.Sprintf("%d, want %v", m.Vals[i], wantVals[i])
		}
		if msg != "" {
			t.Errorf("%s row %d: %s", what, i, msg)
			if bad++; bad == 5 {
				t.Errorf("%s: stopping after 5 differences", what)
				return
			}
		}
	}
}

// operand is one side of a comparison: a Datum and its rows as plain values
// (a scalar repeated, the null literal all null).
type operand struct {
	d    Datum
	rows col
}

func colOperand(c col) operand { return operand{d: Col(c.arr), rows: c} }

// scalarOperand draws a scalar of type ct, sometimes one no row holds.
func scalarOperand(rng *rand.Rand, ct colType, n int) operand {
	c := col{kind: ct.kind(), valid: make([]bool, n)}
	for i := range c.valid {
		c.valid[i] = true
	}
	var v any
	switch ct {
	case tInt:
		x := genInt(rng)
		v, c.ints = x, repeat(x, n)
	case tFloat:
		x := genFloat(rng)
		v, c.flts = x, repeat(x, n)
	case tString, tDict:
		x := genString(rng)
		if rng.Intn(5) == 0 {
			x = "not in any column"
		}
		v, c.strs = x, repeat(x, n)
	case tBool:
		x := rng.Intn(2) == 0
		v, c.bools = x, repeat(x, n)
	}
	return operand{d: Scalar(v), rows: c}
}

func nullOperand(n int) operand { return operand{rows: col{valid: make([]bool, n)}} }

func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// other is the shape of a second operand: like s, sliced at another offset.
func (s shape) other() shape {
	if s.off > 0 {
		s.off += 3
	}
	return s
}

var cmpTypePairs = [][2]colType{
	{tInt, tInt}, {tFloat, tFloat}, {tInt, tFloat}, {tFloat, tInt},
	{tString, tString}, {tDict, tString}, {tString, tDict}, {tDict, tDict},
	{tBool, tBool},
}

// operandForms are the ways of giving Compare or Arith its two operands.
var operandForms = []struct {
	name string
	make func(rng *rand.Rand, ta, tb colType, s shape) (a, b operand)
}{
	{"col-col", func(rng *rand.Rand, ta, tb colType, s shape) (operand, operand) {
		return colOperand(genCol(rng, ta, s)), colOperand(genCol(rng, tb, s.other()))
	}},
	{"col-scalar", func(rng *rand.Rand, ta, tb colType, s shape) (operand, operand) {
		return colOperand(genCol(rng, ta, s)), scalarOperand(rng, tb, s.n)
	}},
	{"scalar-col", func(rng *rand.Rand, ta, tb colType, s shape) (operand, operand) {
		return scalarOperand(rng, ta, s.n), colOperand(genCol(rng, tb, s))
	}},
	{"null-col", func(rng *rand.Rand, ta, tb colType, s shape) (operand, operand) {
		return nullOperand(s.n), colOperand(genCol(rng, tb, s))
	}},
	{"col-null", func(rng *rand.Rand, ta, tb colType, s shape) (operand, operand) {
		return colOperand(genCol(rng, ta, s)), nullOperand(s.n)
	}},
}

func TestCompareMatchesReference(t *testing.T) {
	for _, pair := range cmpTypePairs {
		for _, form := range operandForms {
			t.Run(pair[0].String()+"-"+pair[1].String()+"/"+form.name, func(t *testing.T) {
				forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
					a, b := form.make(rng, pair[0], pair[1], s)
					defer release(a.rows, b.rows)
					ops := allCmpOps
					if pair[0] == tBool {
						ops = []CmpOp{Eq, Ne}
					}
					for _, op := range ops {
						m, err := Compare(a.d, b.d, op, s.n)
						if err != nil {
							t.Fatalf("%s: %v", op, err)
						}
						wantVals, wantValid := refCompare(a.rows, b.rows, op)
						checkMask(t, op.String(), m, wantVals, wantValid)
					}
				})
			})
		}
	}
}

func TestCompareExamples(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		a, b Datum
		op   CmpOp
		want []any // true, false or nil for null
	}{
		{"int<scalar", Col(ints(1, 2, nil, 3)), Scalar(int64(2)), Lt, []any{true, false, nil, false}},
		{"scalar<int flips", Scalar(int64(2)), Col(ints(1, 2, nil, 3)), Lt, []any{false, false, nil, true}},
		{"scalar>=int flips", Scalar(int64(2)), Col(ints(1, 2, 3)), Ge, []any{true, true, false}},
		{"int==float", Col(ints(1, 2, 3)), Col(floats(1.0, 2.5, nil)), Eq, []any{true, false, nil}},
		{"int<float scalar", Col(ints(1, 2, 3)), Scalar(2.5), Lt, []any{true, true, false}},
		{"float scalar<int", Scalar(2.5), Col(ints(1, 2, 3)), Lt, []any{false, false, true}},
		{"NaN==NaN", Col(floats(nan, 1.0)), Col(floats(nan, nan)), Eq, []any{false, false}},
		{"NaN!=NaN", Col(floats(nan, 1.0)), Col(floats(nan, nan)), Ne, []any{true, true}},
		{"-0==0", Col(floats(math.Copysign(0, -1))), Scalar(0.0), Eq, []any{true}},
		{"string bytes", Col(strs("a", "B", "", nil)), Scalar("a"), Lt, []any{false, true, true, nil}},
		{"dict vs scalar", Col(dictStrs([]string{"b", "a"}, "a", "b", nil)), Scalar("b"), Ge, []any{false, true, nil}},
		{"scalar vs dict flips", Scalar("b"), Col(dictStrs([]string{"b", "a"}, "a", "b", nil)), Ge, []any{true, true, nil}},
		{"dict vs string", Col(dictStrs([]string{"x", "y"}, "y", "x")), Col(strs("y", "y")), Eq, []any{true, false}},
		{"bool==", Col(bools(true, false, nil)), Scalar(true), Eq, []any{true, false, nil}},
		{"bool!= col", Col(bools(true, false, true)), Col(bools(true, true, nil)), Ne, []any{false, true, nil}},
		{"null literal", Datum{}, Col(ints(1, 2)), Eq, []any{nil, nil}},
		{"null literal right", Col(strs("a", "b")), Datum{}, Ne, []any{nil, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer failOnPanic(t)
			m, err := Compare(tt.a, tt.b, tt.op, len(tt.want))
			if err != nil {
				t.Fatal(err)
			}
			vals, valid := expectMask(tt.want)
			checkMask(t, tt.name, m, vals, valid)
		})
	}
}

// expectMask turns true/false/nil into wanted values and validity.
func expectMask(want []any) (vals, valid []bool) {
	vals, valid = make([]bool, len(want)), make([]bool, len(want))
	for i, w := range want {
		if w != nil {
			vals[i], valid[i] = w.(bool), true
		}
	}
	return vals, valid
}

func TestCompareIncompatibleKindsFail(t *testing.T) {
	tests := []struct {
		name string
		a, b Datum
		op   CmpOp
	}{
		{"int vs string col", Col(ints(1)), Col(strs("1")), Eq},
		{"int vs string scalar", Col(ints(1)), Scalar("1"), Eq},
		{"string scalar vs int", Scalar("1"), Col(ints(1)), Lt},
		{"dict vs float scalar", Col(dictStrs([]string{"a"}, "a")), Scalar(1.0), Eq},
		{"float vs bool", Col(floats(1.0)), Scalar(true), Eq},
		{"bool vs int col", Col(bools(true)), Col(ints(1)), Ne},
		{"string vs bool", Col(strs("true")), Col(bools(true)), Eq},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer failOnPanic(t)
			if _, err := Compare(tt.a, tt.b, tt.op, 1); err == nil {
				t.Errorf("Compare(%s) succeeded, want an error", tt.name)
			}
		})
	}
}

func TestCmpOpString(t *testing.T) {
	want := []string{"==", "!=", "<", "<=", ">", ">="}
	for i, op := range allCmpOps {
		if op.String() != want[i] {
			t.Errorf("CmpOp(%d).String() = %q, want %q", op, op.String(), want[i])
		}
	}
}

// The four Kleene values a mask row can hold: null rows with either value
// underneath, since kernels leave anything there.
var kleene = []struct {
	name       string
	val, valid uint8
}{{"T", 1, 1}, {"F", 0, 1}, {"N0", 0, 0}, {"N1", 1, 0}}

// kleeneAnd and kleeneOr give the truth tables, with -1 for null.
func kleeneAnd(a, b int) int {
	switch {
	case a == 0 || b == 0:
		return 0
	case a == -1 || b == -1:
		return -1
	}
	return 1
}

func kleeneOr(a, b int) int {
	switch {
	case a == 1 || b == 1:
		return 1
	case a == -1 || b == -1:
		return -1
	}
	return 0
}

func kleeneValue(val, valid uint8) int {
	if valid == 0 {
		return -1
	}
	return int(val)
}

func TestAndOrTruthTables(t *testing.T) {
	var a, b Mask
	var wantAnd, wantOr []int
	for _, x := range kleene {
		for _, y := range kleene {
			a.Vals, a.Valid = append(a.Vals, x.val), append(a.Valid, x.valid)
			b.Vals, b.Valid = append(b.Vals, y.val), append(b.Valid, y.valid)
			wantAnd = append(wantAnd, kleeneAnd(kleeneValue(x.val, x.valid), kleeneValue(y.val, y.valid)))
			wantOr = append(wantOr, kleeneOr(kleeneValue(x.val, x.valid), kleeneValue(y.val, y.valid)))
		}
	}
	checkKleene(t, "And", And(a, b), wantAnd)
	checkKleene(t, "Or", Or(a, b), wantOr)
}

// checkKleene compares a mask with wanted Kleene values (-1: null).
func checkKleene(t *testing.T, what string, m Mask, want []int) {
	t.Helper()
	vals, valid := make([]bool, len(want)), make([]bool, len(want))
	for i, w := range want {
		vals[i], valid[i] = w == 1, w != -1
	}
	checkMask(t, what, m, vals, valid)
}

func TestAndOrWithoutNulls(t *testing.T) {
	a := Mask{Vals: []uint8{1, 1, 0, 0}}
	b := Mask{Vals: []uint8{1, 0, 1, 0}}
	and, or := And(a, b), Or(a, b)
	if and.Valid != nil || or.Valid != nil {
		t.Errorf("And/Or of masks without nulls have a Valid: %v, %v", and.Valid, or.Valid)
	}
	checkKleene(t, "And", and, []int{1, 0, 0, 0})
	checkKleene(t, "Or", or, []int{1, 1, 1, 0})
	// One side without nulls, the other with.
	c := Mask{Vals: []uint8{1, 0, 1, 0}, Valid: []uint8{0, 0, 1, 1}}
	checkKleene(t, "And(a, c)", And(a, c), []int{-1, -1, 0, 0})
	checkKleene(t, "And(c, a)", And(c, a), []int{-1, -1, 0, 0})
	checkKleene(t, "Or(a, c)", Or(a, c), []int{1, 1, 1, 0})
	checkKleene(t, "Or(c, a)", Or(c, a), []int{1, 1, 1, 0})
}

func TestAndOrNotRandom(t *testing.T) {
	forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
		a, b := randomMask(rng, s), randomMask(rng, s)
		wantAnd, wantOr, wantNot := make([]int, s.n), make([]int, s.n), make([]int, s.n)
		for i := 0; i < s.n; i++ {
			x, y := maskValue(a, i), maskValue(b, i)
			wantAnd[i], wantOr[i] = kleeneAnd(x, y), kleeneOr(x, y)
			wantNot[i] = -1
			if x != -1 {
				wantNot[i] = 1 - x
			}
		}
		checkKleene(t, "And", And(a, b), wantAnd)
		checkKleene(t, "Or", Or(a, b), wantOr)
		checkKleene(t, "Not", Not(a), wantNot)
	})
}

// randomMask draws a mask; with noNulls its Valid is nil.
func randomMask(rng *rand.Rand, s shape) Mask {
	m := Mask{Vals: make([]uint8, s.n)}
	for i := range m.Vals {
		m.Vals[i] = uint8(rng.Intn(2))
	}
	if s.nulls != noNulls {
		m.Valid = make([]uint8, s.n)
		for i, v := range genValid(rng, s.n, s.nulls) {
			m.Valid[i] = b2u(v)
		}
	}
	return m
}

func maskValue(m Mask, i int) int {
	if m.Valid != nil && m.Valid[i] == 0 {
		return -1
	}
	return int(m.Vals[i])
}

func TestNotTruthTable(t *testing.T) {
	var m Mask
	var want []int
	for _, x := range kleene {
		m.Vals, m.Valid = append(m.Vals, x.val), append(m.Valid, x.valid)
		v := kleeneValue(x.val, x.valid)
		if v != -1 {
			v = 1 - v
		}
		want = append(want, v)
	}
	checkKleene(t, "Not", Not(m), want)
	checkKleene(t, "Not without nulls", Not(Mask{Vals: []uint8{1, 0}}), []int{0, 1})
}

func TestIsNull(t *testing.T) {
	for _, ct := range allColTypes {
		t.Run(ct.String(), func(t *testing.T) {
			forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
				c := genCol(rng, ct, s)
				defer release(c)
				m := IsNull(Col(c.arr), s.n)
				want := make([]bool, s.n)
				for i, v := range c.valid {
					want[i] = !v
				}
				checkMask(t, "IsNull", m, want, repeat(true, s.n))
			})
		})
	}
	t.Run("scalar", func(t *testing.T) {
		checkMask(t, "IsNull(5)", IsNull(Scalar(int64(5)), 3), repeat(false, 3), repeat(true, 3))
	})
	t.Run("null literal", func(t *testing.T) {
		checkMask(t, "IsNull(null)", IsNull(Datum{}, 3), repeat(true, 3), repeat(true, 3))
	})
}

// A column of Arrow's null type is all null: it has null rows but no
// validity bitmap.
func TestNullTypedColumn(t *testing.T) {
	defer failOnPanic(t)
	nulls := array.NewNull(5)
	defer nulls.Release()
	if k, err := KindOf(nulls.DataType()); err != nil || k != KindNull {
		t.Fatalf("KindOf(null) = %v, %v; want null", k, err)
	}
	checkMask(t, "IsNull", IsNull(Col(nulls), 5), repeat(true, 5), repeat(true, 5))
	m, err := Compare(Col(nulls), Scalar(int64(1)), Eq, 5)
	if err != nil {
		t.Fatal(err)
	}
	checkMask(t, "Compare", m, make([]bool, 5), make([]bool, 5))
	for _, other := range []Datum{Col(ints(1, 2, 3, 4, 5)), Col(floats(1, 2, 3, 4, 5))} {
		got, err := Arith(Col(nulls), other, Add, 5)
		if err != nil {
			t.Fatal(err)
		}
		if got.NullN() != 5 {
			t.Errorf("null + %s: %d nulls, want 5", other.Array.DataType(), got.NullN())
		}
		got.Release()
	}
}

func TestMaskSelectedAndArray(t *testing.T) {
	forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
		m := randomMask(rng, s)
		sel := m.Selected()
		if len(sel) != s.n {
			t.Fatalf("len(Selected()) = %d, want %d", len(sel), s.n)
		}
		arr := m.Array()
		defer arr.Release()
		got := readCol(t, arr)
		for i := 0; i < s.n; i++ {
			v := maskValue(m, i)
			if want := b2u(v == 1); sel[i] != want {
				t.Errorf("Selected()[%d] = %d, want %d", i, sel[i], want)
			}
			if got.valid[i] != (v != -1) || (v != -1 && got.bools[i] != (v == 1)) {
				t.Errorf("Array() row %d = %s, want %d (-1: null)", i, got.show(i), v)
			}
		}
	})
}

// BenchmarkAnd joins two masks of 1M rows without nulls, as a filter of
// several conditions does (TPC-H's q6 has five).
func BenchmarkAnd(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	s := shape{n: 1 << 20, nulls: noNulls}
	x, y := randomMask(rng, s), randomMask(rng, s)
	b.SetBytes(int64(s.n))
	for i := 0; i < b.N; i++ {
		And(x, y)
	}
}

// Bools order false before true, as SQL and Polars order them.
func TestCompareBoolsOrder(t *testing.T) {
	a, b := Col(bools(false, false, true, true)), Col(bools(false, true, false, true))
	for _, c := range []struct {
		op   CmpOp
		want []uint8
	}{
		{Eq, []uint8{1, 0, 0, 1}}, {Ne, []uint8{0, 1, 1, 0}}, {Lt, []uint8{0, 1, 0, 0}},
		{Le, []uint8{1, 1, 0, 1}}, {Gt, []uint8{0, 0, 1, 0}}, {Ge, []uint8{1, 0, 1, 1}},
	} {
		m, err := Compare(a, b, c.op, 4)
		if err != nil || fmt.Sprint(m.Vals) != fmt.Sprint(c.want) {
			t.Errorf("%s: %v, %v; want %v", c.op, m.Vals, err, c.want)
		}
	}
	if m, err := Compare(a, Scalar(true), Lt, 4); err != nil || fmt.Sprint(m.Vals) != "[1 1 0 0]" {
		t.Errorf("< true: %v, %v", m.Vals, err)
	}
}

// TestCompareUnsigned compares uint64 columns over their whole range with
// uint64 and int64 columns, int64 scalars of both signs and floats,
// against an exact comparison of the numbers (big.Int).
func TestCompareUnsigned(t *testing.T) {
	rng := rand.New(rand.NewSource(64))
	const n = 300
	draw := func() uint64 { // edges and spread
		switch rng.Intn(4) {
		case 0:
			return []uint64{0, 1, math.MaxInt64, 1 << 63, math.MaxUint64}[rng.Intn(5)]
		case 1:
			return uint64(rng.Intn(10))
		}
		return rng.Uint64()
	}
	us, us2, is := make([]uint64, n), make([]uint64, n), make([]int64, n)
	fs, valid := make([]float64, n), make([]bool, n)
	for i := range n {
		us[i], us2[i], is[i] = draw(), draw(), int64(draw())
		fs[i], valid[i] = float64(draw())*[]float64{1, -1}[rng.Intn(2)], rng.Intn(8) > 0
	}
	ub := array.NewUint64Builder(memory.DefaultAllocator)
	ub.AppendValues(us, valid)
	u := ub.NewArray()
	ub.AppendValues(us2, nil)
	u2 := ub.NewArray()
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	ib.AppendValues(is, nil)
	iarr := ib.NewArray()
	fb := array.NewFloat64Builder(memory.DefaultAllocator)
	fb.AppendValues(fs, nil)
	farr := fb.NewArray()
	exact := func(i int, other Datum) int {
		x := new(big.Int).SetUint64(us[i])
		switch o := other.Array.(type) {
		case *array.Uint64:
			return x.Cmp(new(big.Int).SetUint64(o.Value(i)))
		case *array.Int64:
			return x.Cmp(big.NewInt(o.Value(i)))
		case *array.Float64:
			return cmp.Compare(float64(us[i]), o.Value(i))
		}
		return x.Cmp(big.NewInt(other.Scalar.(int64)))
	}
	for name, other := range map[string]Datum{
		"uint64": Col(u2), "int64": Col(iarr), "float64": Col(farr),
		"3": Scalar(int64(3)), "-3": Scalar(int64(-3)), "max int64": Scalar(int64(math.MaxInt64)),
	} {
		for _, op := range allCmpOps {
			for _, swapped := range []bool{false, true} {
				var m Mask
				var err error
				if swapped {
					m, err = Compare(other, Col(u), op.flip(), n)
				} else {
					m, err = Compare(Col(u), other, op, n)
				}
				if err != nil {
					t.Fatalf("%s %s: %v", name, op, err)
				}
				for i := range n {
					if got := m.Valid == nil || m.Valid[i] == 1; got != valid[i] {
						t.Fatalf("u %s %s row %d: valid %v", op, name, i, got)
					}
					if want := opHolds(exact(i, other), op); valid[i] && (m.Vals[i] == 1) != want {
						t.Fatalf("u %s %s (swapped %v) row %d (%d): got %d, want %v", op, name, swapped, i, us[i], m.Vals[i], want)
					}
				}
			}
		}
	}
}
