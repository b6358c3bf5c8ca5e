package colbuild

import (
	"strconv"
	"testing"
)

func TestDigits(t *testing.T) {
	for _, tt := range []struct {
		in   string
		v    uint64
		want uint64
		end  int
	}{
		{"", 0, 0, 0},
		{"x1", 0, 0, 0},
		{"0", 0, 0, 1},
		{"123,", 0, 123, 3},
		{"45", 123, 12345, 2},
		{"999999999999999999", 0, 999999999999999999, 18},
		{"12/", 0, 12, 2}, // '/' is just below '0'
		{"12:", 0, 12, 2}, // ':' is just above '9'
	} {
		if v, end := Digits([]byte(tt.in), 0, tt.v); v != tt.want || end != tt.end {
			t.Errorf("Digits(%q, 0, %d) = %d, %d; want %d, %d", tt.in, tt.v, v, end, tt.want, tt.end)
		}
	}
}

func TestPow10(t *testing.T) {
	for i, p := range Pow10 {
		if want, _ := strconv.ParseFloat("1e"+strconv.Itoa(i), 64); p != want {
			t.Errorf("Pow10[%d] = %g, want %g", i, p, want)
		}
	}
}

func TestValidity(t *testing.T) {
	if v := Validity(nil, 10); v != nil {
		t.Errorf("no nulls: %08b, want nil", v)
	}
	v := Validity([]int32{0, 9, 10}, 11)
	if len(v) != 2 || v[0] != 0b11111110 || v[1] != 0b11111001 {
		t.Errorf("nulls 0, 9, 10 of 11: %08b", v)
	}
}

func TestValues(t *testing.T) {
	for _, kind := range []Type{Int64, Float64, Bool, String} {
		v := Values{Kind: kind}
		if got := v.Make(3); got != (kind != String) {
			t.Errorf("%s: Make = %v", kind, got)
			continue
		}
		a := v.Array(2, nil)
		if kind == String {
			if a != nil {
				t.Errorf("string: Array = %v, want nil", a)
			}
			continue
		}
		if a.Len() != 2 || a.DataType().Name() != map[Type]string{Int64: "int64", Float64: "float64", Bool: "bool"}[kind] {
			t.Errorf("%s: Array = %s of %d", kind, a.DataType(), a.Len())
		}
		a.Release()
	}
}
