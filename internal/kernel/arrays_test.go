package kernel

import (
	"math/rand"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// validBitmap packs valid into an Arrow bitmap, or nil when every row is valid.
func validBitmap(valid []bool) []byte {
	out := make([]byte, (len(valid)+7)/8)
	all := true
	for i, v := range valid {
		if v {
			out[i>>3] |= 1 << (i & 7)
		} else {
			all = false
		}
	}
	if all {
		return nil
	}
	return out
}

// The constructors give the same rows as Arrow's builders.
func TestConstructorsMatchBuilders(t *testing.T) {
	for _, ct := range allColTypes {
		t.Run(ct.String(), func(t *testing.T) {
			forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
				want := genFull(rng, ct, s.n, s.nulls)
				defer release(want)
				vb := validBitmap(want.valid)
				var got arrow.Array
				switch ct {
				case tInt:
					got = NewInt64(want.ints, vb)
				case tFloat:
					got = NewFloat64(want.flts, vb)
				case tBool:
					vals := make([]uint8, s.n)
					for i, b := range want.bools {
						vals[i] = b2u(b)
					}
					got = NewBool(vals, vb)
				case tString:
					offsets := []int32{0}
					var data []byte
					for _, v := range want.strs {
						data = append(data, v...)
						offsets = append(offsets, int32(len(data)))
					}
					got = NewString(offsets, data, vb)
				case tDict:
					d := want.arr.(*array.Dictionary)
					got = NewDict(d.Indices().(*array.Int32).Int32Values(), d.Dictionary().(*array.String), vb)
				}
				defer got.Release()
				if !arrow.TypeEqual(got.DataType(), ct.arrowType()) {
					t.Errorf("type %s, want %s", got.DataType(), ct.arrowType())
				}
				checkCol(t, "constructed", readCol(t, got), want)
			})
		})
	}
}

// Validity, IsValid and StringsOf read sliced columns at their offset.
func TestValidityAndStringsOfSliced(t *testing.T) {
	for _, ct := range allColTypes {
		t.Run(ct.String(), func(t *testing.T) {
			forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
				c := genCol(rng, ct, s)
				defer release(c)
				valid, off := Validity(c.arr)
				if (valid == nil) != (c.arr.NullN() == 0) {
					t.Errorf("Validity is nil: %v, with %d nulls", valid == nil, c.arr.NullN())
				}
				var sv Strings
				if c.kind == KindString {
					sv = StringsOf(c.arr)
				}
				for i := 0; i < s.n; i++ {
					if IsValid(valid, off, i) != c.valid[i] {
						t.Fatalf("IsValid row %d = %v, want %v", i, !c.valid[i], c.valid[i])
					}
					if c.kind == KindString && c.valid[i] && sv.Value(i) != c.strs[i] {
						t.Fatalf("StringsOf row %d = %q, want %q", i, sv.Value(i), c.strs[i])
					}
				}
			})
		})
	}
}

func TestTypeHelpers(t *testing.T) {
	tests := []struct {
		typ      arrow.DataType
		isString bool
		name     string
		kind     Kind
	}{
		{Int64, false, "int64", KindInt},
		{Float64, false, "float64", KindFloat},
		{Bool, false, "bool", KindBool},
		{String, true, "string", KindString},
		{Dict, true, "string", KindString},
		{arrow.Null, false, "null", KindNull},
	}
	for _, tt := range tests {
		if IsString(tt.typ) != tt.isString {
			t.Errorf("IsString(%s) = %v", tt.typ, !tt.isString)
		}
		if got := TypeName(tt.typ); got != tt.name {
			t.Errorf("TypeName(%s) = %q, want %q", tt.typ, got, tt.name)
		}
		if k, err := KindOf(tt.typ); err != nil || k != tt.kind {
			t.Errorf("KindOf(%s) = %s, %v; want %s", tt.typ, k, err, tt.kind)
		}
		if tt.kind.String() != map[Kind]string{KindNull: "null", KindInt: "int64", KindFloat: "float64", KindString: "string", KindBool: "bool"}[tt.kind] {
			t.Errorf("Kind.String() = %q", tt.kind)
		}
	}
	for _, typ := range []arrow.DataType{arrow.BinaryTypes.Binary, arrow.ListOf(Int64), &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: Int64}} {
		if _, err := KindOf(typ); err == nil {
			t.Errorf("KindOf(%s) succeeded, want an error", typ)
		}
	}
	same := [][2]arrow.DataType{{Int64, Int64}, {String, Dict}, {Dict, String}, {Dict, Dict}}
	differ := [][2]arrow.DataType{{Int64, Float64}, {String, Int64}, {Bool, Dict}, {Float64, Bool}}
	for _, p := range same {
		if !SameType(p[0], p[1]) {
			t.Errorf("SameType(%s, %s) = false", p[0], p[1])
		}
	}
	for _, p := range differ {
		if SameType(p[0], p[1]) {
			t.Errorf("SameType(%s, %s) = true", p[0], p[1])
		}
	}
}

func TestDatumKind(t *testing.T) {
	tests := []struct {
		d    Datum
		want Kind
	}{
		{Scalar(int64(1)), KindInt},
		{Scalar(1.5), KindFloat},
		{Scalar("a"), KindString},
		{Scalar(false), KindBool},
		{Datum{}, KindNull},
		{Col(ints(1)), KindInt},
		{Col(dictStrs([]string{"a"}, "a")), KindString},
	}
	for _, tt := range tests {
		if got := tt.d.Kind(); got != tt.want {
			t.Errorf("Kind of %v = %s, want %s", tt.d, got, tt.want)
		}
	}
}
