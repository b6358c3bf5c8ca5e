package kernel

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
)

// concatCols appends the rows of cols.
func concatCols(kind Kind, cols []col) col {
	out := col{kind: kind, valid: []bool{}}
	for _, c := range cols {
		out.valid = append(out.valid, c.valid...)
		out.ints = append(out.ints, c.ints...)
		out.flts = append(out.flts, c.flts...)
		out.strs = append(out.strs, c.strs...)
		out.bools = append(out.bools, c.bools...)
	}
	return out
}

// genParts makes 0 to 4 parts of type ct (strings: plain or dictionary at
// random), the first shaped by s, the others of random shapes.
func genParts(rng *rand.Rand, ct colType, s shape) []col {
	parts := make([]col, rng.Intn(5))
	for i := range parts {
		ps := s
		if i > 0 {
			ps = shape{n: rng.Intn(s.n + 2), nulls: nullMode(rng.Intn(3)), off: rng.Intn(2) * (1 + rng.Intn(9))}
		}
		pt := ct
		if ct == tString || ct == tDict {
			pt = []colType{tString, tDict}[rng.Intn(2)]
		}
		parts[i] = genCol(rng, pt, ps)
	}
	return parts
}

func TestConcatMatchesReference(t *testing.T) {
	for _, ct := range allColTypes {
		t.Run(ct.String(), func(t *testing.T) {
			forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
				parts := genParts(rng, ct, s)
				defer release(parts...)
				got, err := Concat(ct.arrowType(), arrays(parts))
				if err != nil {
					t.Fatal(err)
				}
				defer got.Release()
				if want := PlainType(ct.arrowType()); !arrow.TypeEqual(got.DataType(), want) {
					t.Errorf("Concat gave %s, want %s", got.DataType(), want)
				}
				checkCol(t, "Concat", readCol(t, got), concatCols(ct.kind(), parts))
			})
		})
	}
}

func TestConcatRecordsMatchesReference(t *testing.T) {
	forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
		var recs []arrow.Record
		cols := make([][]col, len(allColTypes)) // per column, its parts
		var schema *arrow.Schema
		for k := 1 + rng.Intn(4); k > 0; k-- {
			rs := shape{n: rng.Intn(s.n + 1), nulls: s.nulls, off: s.off}
			rec, rc := genRecord(rng, rs)
			defer rec.Release()
			if schema == nil {
				schema = rec.Schema()
			}
			recs = append(recs, rec)
			for c := range rc {
				cols[c] = append(cols[c], rc[c])
			}
		}
		got, err := ConcatRecords(schema, recs)
		if err != nil {
			t.Fatal(err)
		}
		defer got.Release()
		if want := PlainSchema(schema); !got.Schema().Equal(want) {
			t.Errorf("schema %s, want %s", got.Schema(), want)
		}
		want := make([]col, len(cols))
		n := 0
		for c, parts := range cols {
			want[c] = concatCols(allColTypes[c].kind(), parts)
			n = want[c].len()
		}
		checkRecord(t, got, want, seq(n))
	})
}

// Plain and dictionary strings with nulls, sliced, in one column.
func TestConcatMixedStrings(t *testing.T) {
	defer failOnPanic(t)
	d := dictStrs([]string{"q", "p"}, "p", nil, "q", "p")
	parts := []arrow.Array{
		strs("a", nil, "b"),
		array.NewSlice(d, 1, 4), // nil, "q", "p"
		dictStrs(nil, nil, nil), // all null, empty dictionary
		array.NewSlice(strs("x", "y", "z"), 2, 3),
	}
	for _, typ := range []arrow.DataType{String, Dict} {
		got, err := Concat(typ, parts)
		if err != nil {
			t.Fatal(err)
		}
		if !arrow.TypeEqual(got.DataType(), String) {
			t.Errorf("Concat(%s) gave %s, want utf8", typ, got.DataType())
		}
		want := col{
			kind:  KindString,
			valid: []bool{true, false, true, false, true, true, false, false, true},
			strs:  []string{"a", "", "b", "", "q", "p", "", "", "z"},
		}
		checkCol(t, "Concat", readCol(t, got), want)
		got.Release()
	}
}

func TestConcatNoParts(t *testing.T) {
	for _, ct := range allColTypes {
		got, err := Concat(ct.arrowType(), nil)
		if err != nil {
			t.Fatalf("Concat(%s, none): %v", ct, err)
		}
		if got.Len() != 0 || !arrow.TypeEqual(got.DataType(), PlainType(ct.arrowType())) {
			t.Errorf("Concat(%s, none) = %s with %d rows", ct, got.DataType(), got.Len())
		}
		got.Release()
	}
}

func TestConcatMismatchedTypesFails(t *testing.T) {
	tests := []struct {
		name  string
		typ   arrow.DataType
		parts []arrow.Array
	}{
		{"float into int64", Int64, []arrow.Array{ints(1), floats(1.0)}},
		{"int into float64", Float64, []arrow.Array{ints(1)}},
		{"string into int64", Int64, []arrow.Array{strs("1")}},
		{"int into string", String, []arrow.Array{strs("1"), ints(1)}},
		{"bool into dict", Dict, []arrow.Array{bools(true)}},
		{"string into bool", Bool, []arrow.Array{strs("true")}},
		{"unsupported type", arrow.BinaryTypes.Binary, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer failOnPanic(t)
			if got, err := Concat(tt.typ, tt.parts); err == nil {
				got.Release()
				t.Errorf("Concat succeeded, want an error")
			}
		})
	}
}

func TestConcatRecordsMismatchNamesTheColumn(t *testing.T) {
	defer failOnPanic(t)
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: Int64}, {Name: "price", Type: Float64}}, nil)
	good := array.NewRecord(schema, []arrow.Array{ints(1), floats(1.0)}, 1)
	bad := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "k", Type: Int64}, {Name: "price", Type: String}}, nil),
		[]arrow.Array{ints(2), strs("2.0")}, 1)
	defer good.Release()
	defer bad.Release()
	_, err := ConcatRecords(schema, []arrow.Record{good, bad})
	if err == nil {
		t.Fatal("ConcatRecords succeeded, want an error")
	}
	if !strings.Contains(err.Error(), "price") {
		t.Errorf("error %q does not name the column", err)
	}
	if errors.Unwrap(err) == nil {
		t.Errorf("error %q does not wrap the cause", err)
	}
}

func TestPlainTypeAndSchema(t *testing.T) {
	if !arrow.TypeEqual(PlainType(Dict), String) || !arrow.TypeEqual(PlainType(String), String) || !arrow.TypeEqual(PlainType(Int64), Int64) {
		t.Errorf("PlainType: %s %s %s", PlainType(Dict), PlainType(String), PlainType(Int64))
	}
	s := arrow.NewSchema([]arrow.Field{{Name: "a", Type: Dict, Nullable: true}, {Name: "b", Type: Float64}}, nil)
	want := arrow.NewSchema([]arrow.Field{{Name: "a", Type: String, Nullable: true}, {Name: "b", Type: Float64}}, nil)
	if got := PlainSchema(s); !got.Equal(want) {
		t.Errorf("PlainSchema = %s, want %s", got, want)
	}
}

// ConcatDict gives the rows Concat gives, in every shape; parts with
// different dictionaries come out encoded with their merged, distinct
// entries when those are fewer than the rows.
func TestConcatDictMatchesReference(t *testing.T) {
	for _, ct := range allColTypes {
		t.Run(ct.String(), func(t *testing.T) {
			forShapes(t, func(t *testing.T, s shape, rng *rand.Rand) {
				parts := genParts(rng, ct, s)
				defer release(parts...)
				if len(parts) == 0 {
					return // ConcatDict wants at least one
				}
				got, err := ConcatDict(arrays(parts))
				if err != nil {
					t.Fatal(err)
				}
				defer got.Release()
				checkCol(t, "ConcatDict", readCol(t, got), concatCols(ct.kind(), parts))
				if d, ok := got.(*array.Dictionary); ok {
					seen := map[string]bool{}
					values := DictValues(d)
					for j := range values.Len() {
						if seen[values.Value(j)] && len(parts) > 1 && sharedDict(arrays(parts)) == nil {
							t.Fatalf("merged dictionary repeats %q", values.Value(j))
						}
						seen[values.Value(j)] = true
					}
				}
			})
		})
	}
}

func TestConcatDictMerges(t *testing.T) {
	// Five entries for 22 rows: merging costs less than copying strings.
	a := dictStrs([]string{"x", "y", "z"}, "x", "y", "x", "x", nil, "z", "x", "x", "x", "x", "x", "x")
	b := dictStrs([]string{"z", "w"}, "w", "z", "w", nil, "z", "z", "z", "z", "z", "z")
	defer a.Release()
	defer b.Release()
	got, err := ConcatDict([]arrow.Array{a, b})
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	d, ok := got.(*array.Dictionary)
	if !ok {
		t.Fatalf("ConcatDict gave a %s, want a dictionary", got.DataType())
	}
	if v := DictValues(d); v.Len() != 4 {
		t.Errorf("merged dictionary has %d entries, want 4", v.Len())
	}
	var rows []string
	for i := range got.Len() {
		if got.IsNull(i) {
			rows = append(rows, "<null>")
		} else {
			rows = append(rows, StringsOf(got).Value(i))
		}
	}
	if want := "[x y x x <null> z x x x x x x w z w <null> z z z z z z]"; fmt.Sprint(rows) != want {
		t.Errorf("rows %v, want %s", rows, want)
	}
}
