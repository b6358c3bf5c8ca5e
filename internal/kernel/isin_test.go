package kernel

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// refIsIn is IsIn on plain values: an int64 row matches an int64 equal to
// it or a float64 of exactly its value; a float64 row matches by ==.
func refIsIn(c col, values []any) (vals, valid []bool) {
	n := c.len()
	vals, valid = make([]bool, n), make([]bool, n)
	for i := 0; i < n; i++ {
		if !c.valid[i] {
			continue
		}
		valid[i] = true
		for _, v := range values {
			if matches(c, i, v) {
				vals[i] = true
			}
		}
	}
	return vals, valid
}

func matches(c col, i int, v any) bool {
	switch c.kind {
	case KindInt:
		switch v := v.(type) {
		case int64:
			return c.ints[i] == v
		case float64:
			if v != v {
				return false
			}
			return new(big.Float).SetInt64(c.ints[i]).Cmp(big.NewFloat(v)) == 0
		}
	case KindFloat:
		switch v := v.(type) {
		case int64:
			return c.flts[i] == float64(v)
		case float64:
			return c.flts[i] == v
		}
	case KindString:
		return c.strs[i] == v.(string)
	case KindBool:
		return c.bools[i] == v.(bool)
	}
	panic("bad kind")
}

// isInValues draws up to 6 values for a column of type ct.
func isInValues(rng *rand.Rand, ct colType) []any {
	var out []any
	for k := rng.Intn(7); k > 0; k-- {
		switch ct {
		case tInt:
			switch rng.Intn(3) {
			case 0:
				out = append(out, genInt(rng))
			case 1:
				out = append(out, float64(rng.Intn(21)-10))
			default:
				out = append(out, genFloat(rng))
			}
		case tFloat:
			if rng.Intn(3) == 0 {
				out = append(out, rng.Int63n(21)-10)
			} else {
				out = append(out, genFloat(rng))
			}
		case tString, tDict:
			if rng.Intn(5) == 0 {
				out = append(out, "not in any column")
			} else {
				out = append(out, genString(rng))
			}
		case tBool:
			out = append(out, rng.Intn(2) == 0)
		}
	}
	return out
}

func TestIsInMatchesReference(t *testing.T) {
	for _, ct := range allColTypes {
		t.Run(ct.String(), func(t *testing.T) {
			forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
				c := genCol(rng, ct, s)
				defer release(c)
				for try := 0; try < 4; try++ {
					values := isInValues(rng, ct)
					m, err := IsIn(Col(c.arr), values, s.n)
					if err != nil {
						t.Fatalf("IsIn(%v): %v", values, err)
					}
					wantVals, wantValid := refIsIn(c, values)
					checkMask(t, "IsIn", m, wantVals, wantValid)
				}
			})
		})
	}
}

func TestIsInExamples(t *testing.T) {
	tests := []struct {
		name   string
		d      Datum
		values []any
		want   []any
	}{
		{"ints", Col(ints(1, 2, nil, 3)), []any{int64(3), int64(1)}, []any{true, false, nil, true}},
		{"ints match integral floats", Col(ints(1, 2, 3)), []any{2.0, 2.5}, []any{false, true, false}},
		{"floats match ints", Col(floats(1.0, 2.5, nil)), []any{int64(1)}, []any{true, false, nil}},
		{"-0 is 0", Col(floats(math.Copysign(0, -1), 1.0)), []any{0.0}, []any{true, false}},
		{"strings", Col(strs("a", "", nil, "b")), []any{"", "b"}, []any{false, true, nil, true}},
		{"dict", Col(dictStrs([]string{"b", "a", "c"}, "a", "c", nil)), []any{"c", "zz"}, []any{false, true, nil}},
		{"bools", Col(bools(true, false, nil)), []any{false}, []any{false, true, nil}},
		{"empty list", Col(ints(1, nil)), nil, []any{false, nil}},
		{"null literal", Datum{}, []any{int64(1)}, []any{nil, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer failOnPanic(t)
			m, err := IsIn(tt.d, tt.values, len(tt.want))
			if err != nil {
				t.Fatal(err)
			}
			vals, valid := expectMask(tt.want)
			checkMask(t, tt.name, m, vals, valid)
		})
	}
}

// A float outside int64's range, or infinite, matches no int64 row: it
// must not wrap around to math.MinInt64 on the way.
func TestIsInIntColumnWithHugeFloats(t *testing.T) {
	defer failOnPanic(t)
	c := Col(ints(math.MinInt64, math.MaxInt64, 0))
	for _, v := range []float64{math.Inf(1), math.Inf(-1), 1e19, -1e19, 0x1p63, math.NaN()} {
		m, err := IsIn(c, []any{v}, 3)
		if err != nil {
			t.Fatal(err)
		}
		checkMask(t, fmt.Sprintf("IsIn([MinInt64 MaxInt64 0], [%v])", v), m, []bool{false, false, false}, []bool{true, true, true})
	}
	// -2^63 is exactly MinInt64.
	m, err := IsIn(c, []any{-0x1p63}, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkMask(t, "IsIn(ints, -2^63)", m, []bool{true, false, false}, []bool{true, true, true})
}

func TestIsInWrongKindFails(t *testing.T) {
	tests := []struct {
		name   string
		d      Datum
		values []any
	}{
		{"int with string", Col(ints(1)), []any{int64(1), "1"}},
		{"int with bool", Col(ints(1)), []any{true}},
		{"int with Go int", Col(ints(1)), []any{1}},
		{"float with string", Col(floats(1.0)), []any{"1"}},
		{"string with int", Col(strs("1")), []any{int64(1)}},
		{"dict with float", Col(dictStrs([]string{"a"}, "a")), []any{1.0}},
		{"bool with string", Col(bools(true)), []any{"true"}},
		{"bool with int", Col(bools(true)), []any{int64(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer failOnPanic(t)
			if _, err := IsIn(tt.d, tt.values, 1); err == nil {
				t.Errorf("IsIn(%s) succeeded, want an error", tt.name)
			}
		})
	}
}

func TestMaskOf(t *testing.T) {
	forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
		c := genCol(rng, tBool, s)
		defer release(c)
		checkMask(t, "MaskOf(col)", MaskOf(Col(c.arr), s.n), c.bools, c.valid)
		checkMask(t, "MaskOf(true)", MaskOf(Scalar(true), s.n), repeat(true, s.n), repeat(true, s.n))
		checkMask(t, "MaskOf(false)", MaskOf(Scalar(false), s.n), repeat(false, s.n), repeat(true, s.n))
		checkMask(t, "MaskOf(null)", MaskOf(Datum{}, s.n), repeat(false, s.n), repeat(false, s.n))
	})
}
