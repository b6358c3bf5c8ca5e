package parquet

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/parquet-go/parquet-go/format"

	"github.com/duskdata/dusk/io/files"
)

// passOf is a filter testing each value (nil for null) with keep.
func passOf(keep func(v any) bool) func(arrow.Array) ([]uint8, error) {
	return func(values arrow.Array) ([]uint8, error) {
		out := make([]uint8, values.Len())
		for i, v := range valuesOf(values) {
			if keep(v) {
				out[i] = 1
			}
		}
		return out, nil
	}
}

// TestReadWhere checks ReadWhere against the rows a plain loop keeps, over
// row groups read in another order, dictionary-encoded columns (numbers
// and strings, tested a dictionary value at a time) and plain ones
// (tested a page at a time), with nulls, and filters that keep nulls.
func TestReadWhere(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 20000
	few := col{name: "few", kind: "int", vals: make([]any, n)}    // a dictionary of 20
	code := col{name: "code", kind: "dict", vals: make([]any, n)} // a dictionary of 6 strings
	flag := col{name: "flag", kind: "int", vals: make([]any, n)}  // a dictionary of 3, no nulls
	for i := range n {
		flag.vals[i] = r.Int64N(3)
		if i%7 != 3 {
			few.vals[i] = r.Int64N(20)
		}
		if i%11 != 5 {
			code.vals[i] = []string{"AIR", "MAIL", "SHIP", "RAIL", "TRUCK", "FOB"}[r.IntN(6)]
		}
	}
	many := genCol(r, "many", "int", n, 5, 0) // plain pages: every value its own
	for i, v := range many.vals {
		if v != nil {
			many.vals[i] = int64(i)*1000 + v.(int64)
		}
	}
	payload := genCol(r, "payload", "float", n, 13, 0)
	text := genCol(r, "text", "string", n, 17, n)            // plain strings
	none := genCol(r, "none", "float", n, 1, 0)              // every row null
	id := col{name: "id", kind: "int", vals: make([]any, n)} // plain, no nulls
	for i := range id.vals {
		id.vals[i] = int64(i)
	}
	cols := []col{few, code, many, flag, payload, text, none, id}
	schema, recs := records(cols, []int{0, 7000, n})
	path, _ := writeFile(t, schema, recs, WriteOptions{RowGroupRows: 6000})
	for i, wantDict := range []bool{true, true, false, true} {
		if got := slices.Contains(chunkEncodings(t, path, i), format.RLEDictionary); got != wantDict {
			t.Fatalf("column %s dictionary-encoded: %v, want %v", cols[i].name, got, wantDict)
		}
	}
	isInt := func(v any, f func(int64) bool) bool { x, ok := v.(int64); return ok && f(x) }
	cases := []struct {
		name    string
		filters map[string]func(any) bool
	}{
		{"a dictionary of numbers", map[string]func(any) bool{"few": func(v any) bool { return isInt(v, func(x int64) bool { return x >= 3 && x < 8 }) }}},
		{"plain pages", map[string]func(any) bool{"many": func(v any) bool { return isInt(v, func(x int64) bool { return x%3 == 0 }) }}},
		{"a dictionary without nulls", map[string]func(any) bool{"flag": func(v any) bool { return v == int64(1) }}},
		{"nulls kept", map[string]func(any) bool{"few": func(v any) bool { return v == nil }}},
		{"a dictionary of strings", map[string]func(any) bool{"code": func(v any) bool { s, ok := v.(string); return ok && strings.HasSuffix(s, "AIL") }}},
		{"strings or null", map[string]func(any) bool{"code": func(v any) bool { return v == nil || v == "FOB" }}},
		{"three at once", map[string]func(any) bool{
			"few":  func(v any) bool { return isInt(v, func(x int64) bool { return x%2 == 0 }) },
			"code": func(v any) bool { return v != "SHIP" },
			"many": func(v any) bool { return v != nil },
			"flag": func(v any) bool { return v != int64(2) },
		}},
		{"none passes", map[string]func(any) bool{"few": func(v any) bool { return isInt(v, func(x int64) bool { return x > 100 }) }}},
	}
	groups := []int{3, 0, 2}
	tested := []string{"few", "code", "many", "flag"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var filters []files.Filter
			for _, name := range tested {
				if keep, ok := c.filters[name]; ok {
					filters = append(filters, files.Filter{Column: name, Pass: passOf(keep)})
				}
			}
			var rows []int
			for _, g := range groups {
				for i := g * 6000; i < min(n, (g+1)*6000); i++ {
					kept := true
					for j, name := range tested {
						if keep, ok := c.filters[name]; ok && !keep(cols[j].vals[i]) {
							kept = false
						}
					}
					if kept {
						rows = append(rows, i)
					}
				}
			}
			rec := readWhere(t, path, groups, nil, filters)
			defer rec.Release()
			checkRecord(t, rec, cols, nil, rows)
		})
	}
	// Two filters of one plain column that is also read: built once,
	// tested twice.
	odd := func(v any) bool { return isInt(v, func(x int64) bool { return x%2 != 0 }) }
	third := func(v any) bool { return isInt(v, func(x int64) bool { return x%3 == 0 }) }
	var rows []int
	for i, v := range many.vals {
		if odd(v) && third(v) {
			rows = append(rows, i)
		}
	}
	rec := readWhere(t, path, nil, []string{"many"}, []files.Filter{{Column: "many", Pass: passOf(odd)}, {Column: "many", Pass: passOf(third)}})
	defer rec.Release()
	checkRecord(t, rec, []col{many}, nil, rows)
}

// TestReadWhereErrors checks that a filter's failure, a wrong count of
// outcomes and an unknown column are errors that name the column.
func TestReadWhereErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	cols := []col{genCol(r, "x", "int", 100, 0, 0), genCol(r, "y", "int", 100, 0, 0)}
	schema, recs := records(cols, []int{0, 100})
	path, _ := writeFile(t, schema, recs, WriteOptions{})
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	for _, c := range []struct {
		filter files.Filter
		read   []string // x read too, or y only
		want   string
	}{
		{files.Filter{Column: "x", Pass: func(arrow.Array) ([]uint8, error) { return nil, os.ErrInvalid }}, []string{"y"}, "column x: page 0: invalid argument"},
		{files.Filter{Column: "x", Pass: func(arrow.Array) ([]uint8, error) { return nil, os.ErrInvalid }}, []string{"x"}, "column x: invalid argument"},
		{files.Filter{Column: "x", Pass: func(arrow.Array) ([]uint8, error) { return []uint8{1}, nil }}, []string{"y"}, "outcomes"},
		{files.Filter{Column: "x", Pass: func(arrow.Array) ([]uint8, error) { return []uint8{1}, nil }}, []string{"x"}, "outcomes"},
		{files.Filter{Column: "nope", Pass: passOf(func(any) bool { return true })}, nil, `no column "nope"`},
	} {
		_, err := ReadWhere(f, st.Size(), path, nil, c.read, []files.Filter{c.filter})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one with %q", err, c.want)
		}
	}
}

// TestFillOnes: every byte of the slice is 1 at any length, and nothing
// past it is written.
func TestFillOnes(t *testing.T) {
	for n := range 300 {
		buf := make([]byte, n+2)
		fillOnes(buf[1 : n+1])
		if buf[0] != 0 || buf[n+1] != 0 {
			t.Fatalf("length %d: wrote outside the slice", n)
		}
		for i, b := range buf[1 : n+1] {
			if b != 1 {
				t.Fatalf("length %d: byte %d is %d", n, i, b)
			}
		}
	}
}

// TestKeepRows: a page's kept rows, plain or by dictionary, land in order
// whatever the share kept, as one row at a time would place them.
func TestKeepRows(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	dict := []float64{0.5, 1.5, 2.5, 3.5}
	for range 500 {
		n := r.IntN(200)
		share := r.Float64() * r.Float64()
		keep, idx, src := make([]byte, n), make([]int32, n), make([]float64, n)
		var want []float64
		for i := range n {
			idx[i] = int32(r.IntN(len(dict)))
			src[i] = dict[idx[i]]
			if r.Float64() < share {
				keep[i] = 1
				want = append(want, src[i])
			}
		}
		out := make([]float64, n+1)
		if at := keepPlain(out, 0, keep, nil, src); !slices.Equal(out[:at], want) {
			t.Fatalf("plain: %v, want %v", out[:at], want)
		}
		at, err := keepIndexed(out, 0, keep, nil, dict, idx)
		if err != nil || !slices.Equal(out[:at], want) {
			t.Fatalf("indexed: %v %v, want %v", out[:at], err, want)
		}
		if n > 0 { // a damaged index in a kept row is an error
			i := r.IntN(n)
			keep[i], idx[i] = 1, int32(len(dict))
			if _, err := keepIndexed(out, 0, keep, nil, dict, idx); err == nil {
				t.Fatal("an index past the dictionary in a kept row: no error")
			}
		}
	}
}
