package parquet

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/parquettest"
	"github.com/duskdata/dusk/io/files"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
)

// col is a test column: its values, nil for null, and how to build it.
type col struct {
	name string
	kind string // "int", "float", "bool", "string", "dict"
	vals []any
}

// genCol makes n values of a kind; nullEvery > 0 nulls every nullEvery-th
// row; distinct bounds the distinct strings.
func genCol(r *rand.Rand, name, kind string, n, nullEvery, distinct int) col {
	c := col{name: name, kind: kind, vals: make([]any, n)}
	for i := range c.vals {
		if nullEvery > 0 && i%nullEvery == nullEvery-1 {
			continue
		}
		switch kind {
		case "int":
			c.vals[i] = r.Int64N(2000) - 1000
		case "float":
			c.vals[i] = r.NormFloat64()
		case "bool":
			c.vals[i] = r.IntN(2) == 1
		default:
			c.vals[i] = fmt.Sprintf("s%d", r.IntN(distinct))
		}
	}
	return c
}

// arrayOf builds rows [lo, hi) of c as an Arrow array.
func arrayOf(c col, lo, hi int) arrow.Array {
	vals := c.vals[lo:hi]
	n := len(vals)
	valid := make([]byte, (n+7)/8)
	for i, v := range vals {
		if v != nil {
			valid[i>>3] |= 1 << (i & 7)
		}
	}
	switch c.kind {
	case "int":
		out := make([]int64, n)
		for i, v := range vals {
			if v != nil {
				out[i] = v.(int64)
			}
		}
		return kernel.NewInt64(out, valid)
	case "float":
		out := make([]float64, n)
		for i, v := range vals {
			if v != nil {
				out[i] = v.(float64)
			}
		}
		return kernel.NewFloat64(out, valid)
	case "bool":
		out := make([]uint8, n)
		for i, v := range vals {
			if v != nil && v.(bool) {
				out[i] = 1
			}
		}
		return kernel.NewBool(out, valid)
	case "string":
		offs := make([]int32, n+1)
		var data []byte
		for i, v := range vals {
			if v != nil {
				data = append(data, v.(string)...)
			}
			offs[i+1] = int32(len(data))
		}
		return kernel.NewString(offs, data, valid)
	default: // dict
		ids := map[string]int32{}
		offs := []int32{0}
		var data []byte
		idx := make([]int32, n)
		for i, v := range vals {
			if v == nil {
				continue
			}
			s := v.(string)
			id, ok := ids[s]
			if !ok {
				id = int32(len(ids))
				ids[s] = id
				data = append(data, s...)
				offs = append(offs, int32(len(data)))
			}
			idx[i] = id
		}
		dict := kernel.NewString(offs, data, nil)
		defer dict.Release()
		return kernel.NewDict(idx, dict, valid)
	}
}

func arrowType(kind string) arrow.DataType {
	switch kind {
	case "int":
		return kernel.Int64
	case "float":
		return kernel.Float64
	case "bool":
		return kernel.Bool
	case "string":
		return kernel.String
	}
	return kernel.Dict
}

// records cuts cols into records at the given row boundaries.
func records(cols []col, cuts []int) (*arrow.Schema, []arrow.Record) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.name, Type: arrowType(c.kind), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	var recs []arrow.Record
	for i := 0; i+1 < len(cuts); i++ {
		arrays := make([]arrow.Array, len(cols))
		for j, c := range cols {
			arrays[j] = arrayOf(c, cuts[i], cuts[i+1])
		}
		recs = append(recs, array.NewRecord(schema, arrays, int64(cuts[i+1]-cuts[i])))
		for _, a := range arrays {
			a.Release()
		}
	}
	return schema, recs
}

// valuesOf reads an array back as values, nil for null: every integer type
// as int64, floats as float64.
func valuesOf(a arrow.Array) []any {
	a = kernel.Widen(a)
	defer a.Release()
	out := make([]any, a.Len())
	for i := range out {
		if a.IsNull(i) || a.DataType().ID() == arrow.NULL { // Arrow's null type has no bitmap
			continue
		}
		switch a := a.(type) {
		case *array.Int64:
			out[i] = a.Value(i)
		case *array.Float64:
			out[i] = a.Value(i)
		case *array.Boolean:
			out[i] = a.Value(i)
		default:
			out[i] = kernel.StringsOf(a).Value(i)
		}
	}
	return out
}

func writeFile(t testing.TB, schema *arrow.Schema, recs []arrow.Record, opts WriteOptions) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, schema, recs, opts); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.parquet")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, buf.Bytes()
}

// readFile reads the named columns of the given groups of path with Read.
func readFile(t *testing.T, path string, groups []int, names []string) arrow.Record {
	t.Helper()
	return readWhere(t, path, groups, names, nil)
}

// readWhere reads path with ReadWhere.
func readWhere(t *testing.T, path string, groups []int, names []string, filters []files.Filter) arrow.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	rec, err := ReadWhere(f, st.Size(), path, groups, names, filters)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func inspectFile(t *testing.T, path string) *FileInfo {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	info, err := Inspect(f, st.Size(), path)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	mixed := func(n, nullEvery int) []col {
		return []col{
			genCol(r, "i", "int", n, nullEvery, 0),
			genCol(r, "f", "float", n, nullEvery+1, 0),
			genCol(r, "b", "bool", n, nullEvery+2, 0),
			genCol(r, "unique", "string", n, nullEvery, 1<<30), // plain in the file
			genCol(r, "few", "string", n, nullEvery+3, 7),      // dictionary-encoded by Write
			genCol(r, "d", "dict", n, nullEvery, 20),           // an Arrow dictionary
		}
	}
	cases := []struct {
		name string
		cols []col
		cuts []int // record boundaries
		opts WriteOptions
	}{
		{"one record with nulls", mixed(1000, 3), []int{0, 1000}, WriteOptions{}},
		{"no nulls", mixed(1000, 0), []int{0, 1000}, WriteOptions{}},
		{"all nulls", mixed(50, 1), []int{0, 50}, WriteOptions{}},
		{"one row", mixed(1, 0), []int{0, 1}, WriteOptions{}},
		{"no records", mixed(0, 0), []int{0}, WriteOptions{}},
		{"an empty record", mixed(0, 0), []int{0, 0}, WriteOptions{}},
		{"row groups across records", mixed(2500, 5), []int{0, 100, 100, 1337, 2500}, WriteOptions{RowGroupRows: 300}},
		{"row group per record", mixed(900, 4), []int{0, 300, 600, 900}, WriteOptions{RowGroupRows: 300}},
		{"many pages", mixed(200_000, 11), []int{0, 150_000, 200_000}, WriteOptions{RowGroupRows: 70_000}},
		// The first nulls at rows 1002-1005 of the fourth row group: the
		// reader makes the bitmap there, the rows before all valid.
		{"first null in a later row group", mixed(2500, 1003), []int{0, 2500}, WriteOptions{RowGroupRows: 300}},
		{"first null in a later page", mixed(200_000, 120_001), []int{0, 200_000}, WriteOptions{}},
		{"snappy", mixed(500, 3), []int{0, 500}, WriteOptions{Compression: "snappy", RowGroupRows: 128}},
		{"gzip", mixed(500, 3), []int{0, 500}, WriteOptions{Compression: "gzip"}},
		{"none", mixed(500, 3), []int{0, 500}, WriteOptions{Compression: "none", RowGroupRows: 100}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			schema, recs := records(tc.cols, tc.cuts)
			defer func() {
				for _, rec := range recs {
					rec.Release()
				}
			}()
			path, _ := writeFile(t, schema, recs, tc.opts)
			n := tc.cuts[len(tc.cuts)-1]
			groupRows := int(cmpOr(tc.opts.RowGroupRows, DefaultRowGroupRows))

			info := inspectFile(t, path)
			if info.NumRows != int64(n) {
				t.Errorf("NumRows = %d, want %d", info.NumRows, n)
			}
			if want := (n + groupRows - 1) / groupRows; len(info.RowGroups) != want {
				t.Errorf("%d row groups, want %d", len(info.RowGroups), want)
			}
			for i, c := range tc.cols {
				f := info.Schema.Field(i)
				distinct := map[any]bool{}
				for _, v := range c.vals {
					if v != nil {
						distinct[v] = true
					}
				}
				wantDict := c.kind == "dict" || 2*len(distinct) <= n
				if f.Name != c.name || !kernel.SameType(f.Type, arrowType(c.kind)) || !f.Nullable {
					t.Errorf("field %d = %v, want %s %s", i, f, c.name, c.kind)
				}
				if n > 0 && kernel.IsString(f.Type) && arrow.TypeEqual(f.Type, kernel.Dict) != wantDict {
					t.Errorf("column %s is %s, want dictionary %v", c.name, f.Type, wantDict)
				}
				// Numbers of few distinct values (ints in [-1000, 1000) in
				// thousands of rows) are dictionary-encoded in the file.
				if n > 0 && (c.kind == "int" || c.kind == "float") {
					wantDict := 8*len(distinct) <= min(n, dictSample)
					if got := slices.Contains(chunkEncodings(t, path, i), format.RLEDictionary); got != wantDict {
						t.Errorf("column %s dictionary-encoded %v, want %v", c.name, got, wantDict)
					}
				}
			}

			// All of it.
			rec := readFile(t, path, nil, nil)
			checkRecord(t, rec, tc.cols, info.Schema, allRows(n))
			rec.Release()

			// Subsets of columns and of row groups, out of order.
			groups := []int{}
			for g := len(info.RowGroups) - 1; g >= 0; g -= 2 {
				groups = append(groups, g)
			}
			var rows []int
			for _, g := range groups {
				rows = append(rows, allRows(min(n, (g+1)*groupRows))[g*groupRows:]...)
			}
			for _, names := range [][]string{{"i"}, {"d", "unique"}, {"few", "b", "f"}} {
				rec := readFile(t, path, groups, names)
				var sub []col
				for _, c := range tc.cols {
					if slices.Contains(names, c.name) {
						sub = append(sub, c)
					}
				}
				checkRecord(t, rec, sub, nil, rows)
				rec.Release()
			}
		})
	}
}

func cmpOr(a, b int64) int64 {
	if a != 0 {
		return a
	}
	return b
}

func allRows(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// checkRecord checks that rec holds the given rows of cols, in order, with
// the schema's types if one is given.
func checkRecord(t *testing.T, rec arrow.Record, cols []col, schema *arrow.Schema, rows []int) {
	t.Helper()
	if int(rec.NumCols()) != len(cols) || int(rec.NumRows()) != len(rows) {
		t.Fatalf("record of %d columns and %d rows, want %d and %d", rec.NumCols(), rec.NumRows(), len(cols), len(rows))
	}
	for i, c := range cols {
		a := rec.Column(i)
		if rec.ColumnName(i) != c.name {
			t.Errorf("column %d is %s, want %s", i, rec.ColumnName(i), c.name)
		}
		if schema != nil && !arrow.TypeEqual(a.DataType(), schema.Field(i).Type) {
			t.Errorf("column %s is %s, Inspect said %s", c.name, a.DataType(), schema.Field(i).Type)
		}
		if err := checkArray(a); err != nil {
			t.Errorf("column %s: %v", c.name, err)
		}
		got := valuesOf(a)
		for j, r := range rows {
			if !reflect.DeepEqual(got[j], c.vals[r]) {
				t.Errorf("column %s row %d = %v, want %v", c.name, r, got[j], c.vals[r])
				break
			}
		}
	}
}

func TestStats(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, groupRows = 1000, 128
	cols := []col{
		genCol(r, "i", "int", n, 5, 0),
		genCol(r, "f", "float", n, 6, 0),
		genCol(r, "b", "bool", n, 7, 0),
		genCol(r, "s", "string", n, 3, 1<<30),
		genCol(r, "d", "dict", n, 4, 30),
		{name: "nulls", kind: "int", vals: make([]any, n)},
	}
	cols[2].vals[0] = true // make a group all true
	for i := 1; i < groupRows; i++ {
		if cols[2].vals[i] != nil {
			cols[2].vals[i] = true
		}
	}
	schema, recs := records(cols, []int{0, 400, n})
	path, _ := writeFile(t, schema, recs, WriteOptions{RowGroupRows: groupRows})
	info := inspectFile(t, path)
	for g, rg := range info.RowGroups {
		lo, hi := g*groupRows, min(n, (g+1)*groupRows)
		if rg.Rows != int64(hi-lo) || rg.Bytes <= 0 {
			t.Errorf("group %d: %d rows and %d bytes, want %d rows", g, rg.Rows, rg.Bytes, hi-lo)
		}
		for i, c := range cols {
			want := files.ColumnStats{Paged: true} // Dusk's writer writes page indexes
			for _, v := range c.vals[lo:hi] {
				if v == nil {
					want.Nulls++
					continue
				}
				first := !want.HasMinMax
				want.HasMinMax = true
				switch v := v.(type) {
				case int64:
					if first || v < want.MinInt {
						want.MinInt = v
					}
					if first || v > want.MaxInt {
						want.MaxInt = v
					}
				case float64:
					if first || v < want.MinFloat {
						want.MinFloat = v
					}
					if first || v > want.MaxFloat {
						want.MaxFloat = v
					}
				case bool:
					if first {
						want.MinBool, want.MaxBool = v, v
					}
					want.MinBool = want.MinBool && v
					want.MaxBool = want.MaxBool || v
				case string:
					if first || v < want.MinString {
						want.MinString = v
					}
					if first || v > want.MaxString {
						want.MaxString = v
					}
				}
			}
			got := rg.Columns[i]
			if got.Compressed <= 0 {
				t.Errorf("group %d column %s: %d compressed bytes", g, c.name, got.Compressed)
			}
			got.Compressed = 0 // what the writer's pages took
			if got != want {
				t.Errorf("group %d column %s: stats %+v, want %+v", g, c.name, got, want)
			}
		}
	}
}

// row is a struct that parquet-go's own writer writes, by reflection.
type row struct {
	I32   int32    `parquet:"i32"`
	U32   uint32   `parquet:"u32"`
	I64   int64    `parquet:"i64"`
	OptI  *int64   `parquet:"opt_i,optional"`
	F32   float32  `parquet:"f32"`
	F64   *float64 `parquet:"f64,optional"`
	B     bool     `parquet:"b"`
	S     string   `parquet:"s"`
	OptS  *string  `parquet:"opt_s,optional"`
	DictS string   `parquet:"dict_s,dict"`
	I8    int8     `parquet:"i8"`
	DictI *int64   `parquet:"dict_i,optional,dict"`
	DictF float32  `parquet:"dict_f,dict"`
	DictB *bool    `parquet:"dict_b,optional"`
}

func genRows(n int) []row {
	r := rand.New(rand.NewPCG(5, 6))
	rows := make([]row, n)
	for i := range rows {
		x := rows[i]
		x.I32 = int32(r.Uint32())
		x.U32 = r.Uint32()
		x.I64 = r.Int64() - math.MaxInt64/2
		if i%3 != 0 {
			v := int64(i)
			x.OptI = &v
		}
		x.F32 = float32(r.NormFloat64())
		if i%4 != 1 {
			v := r.NormFloat64()
			x.F64 = &v
		}
		x.B = i%5 == 0
		x.S = fmt.Sprintf("row %d", i)
		if i%2 == 0 {
			s := fmt.Sprintf("opt %d", r.IntN(100))
			x.OptS = &s
		}
		x.DictS = fmt.Sprintf("k%d", r.IntN(12))
		if i > n/2 {
			x.DictS = fmt.Sprintf("k%d", r.IntN(5000)) // to push the dictionary past its limit
		}
		x.I8 = int8(i)
		if i%7 != 3 {
			v := int64(r.IntN(9) - 4)
			x.DictI = &v
		}
		x.DictF = float32(r.IntN(3)) / 2
		if i%5 != 2 {
			v := i%3 == 0
			x.DictB = &v
		}
		rows[i] = x
	}
	return rows
}

// rowValues is a row as Read returns it: ints as int64, floats as float64.
func rowValues(x row) []any {
	opt := func(p any) any {
		switch p := p.(type) {
		case *int64:
			if p != nil {
				return *p
			}
		case *float64:
			if p != nil {
				return *p
			}
		case *string:
			if p != nil {
				return *p
			}
		}
		return nil
	}
	return []any{int64(x.I32), int64(x.U32), x.I64, opt(x.OptI), float64(x.F32), opt(x.F64),
		x.B, x.S, opt(x.OptS), x.DictS, int64(x.I8), opt(x.DictI), float64(x.DictF), optBool(x.DictB)}
}

func optBool(p *bool) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestGenericWriterFile(t *testing.T) {
	const n = 20_000
	rows := genRows(n)
	for _, tc := range []struct {
		name string
		opts []parquet.WriterOption
	}{
		{"defaults", nil},
		{"pages v1, small pages and groups", []parquet.WriterOption{parquet.DataPageVersion(1), parquet.PageBufferSize(4096), parquet.MaxRowsPerRowGroup(3000)}},
		{"dictionary falls back to plain", []parquet.WriterOption{parquet.PageBufferSize(2048), parquet.DictionaryMaxBytes(1000), parquet.MaxRowsPerRowGroup(7000)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := parquet.NewGenericWriter[row](&buf, tc.opts...)
			for lo := 0; lo < n; lo += 1000 {
				if _, err := w.Write(rows[lo : lo+1000]); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "g.parquet")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			info := inspectFile(t, path)
			names := []string{"i32", "u32", "i64", "opt_i", "f32", "f64", "b", "s", "opt_s", "dict_s", "i8", "dict_i", "dict_f", "dict_b"}
			types := map[string]string{"i32": "int32", "u32": "uint32", "i64": "int64", "f32": "float32", "f64": "float64", "i8": "int8"}
			for i, name := range names {
				if info.Schema.Field(i).Name != name {
					t.Fatalf("field %d is %s, want %s", i, info.Schema.Field(i).Name, name)
				}
				if want, ok := types[name]; ok && info.Schema.Field(i).Type.String() != want {
					t.Errorf("field %s is %s, want %s as written", name, info.Schema.Field(i).Type, want)
				}
			}
			rec := readFile(t, path, nil, nil)
			defer rec.Release()
			if tc.name == "dictionary falls back to plain" && !arrow.TypeEqual(rec.Column(9).DataType(), kernel.String) {
				t.Errorf("dict_s is %s where a row group fell back to plain, want plain strings", rec.Column(9).DataType())
			}
			if tc.name == "defaults" && !arrow.TypeEqual(rec.Column(9).DataType(), kernel.Dict) {
				t.Errorf("dict_s is %s, want a dictionary", rec.Column(9).DataType())
			}
			if rec.NumRows() != n {
				t.Fatalf("%d rows, want %d", rec.NumRows(), n)
			}
			cols := make([][]any, len(names))
			for i := range names {
				if !arrow.TypeEqual(rec.Column(i).DataType(), info.Schema.Field(i).Type) {
					t.Errorf("column %s is %s, Inspect said %s", names[i], rec.Column(i).DataType(), info.Schema.Field(i).Type)
				}
				cols[i] = valuesOf(rec.Column(i))
			}
			for r := range rows {
				want := rowValues(rows[r])
				for i := range names {
					if !reflect.DeepEqual(cols[i][r], want[i]) {
						t.Fatalf("row %d column %s = %v, want %v", r, names[i], cols[i][r], want[i])
					}
				}
			}
			// Statistics of an unsigned column in int64 terms.
			for g, rg := range info.RowGroups {
				st := rg.Columns[1]
				if !st.HasMinMax || st.MinInt < 0 || st.MaxInt > math.MaxUint32 {
					t.Errorf("group %d: u32 stats %+v", g, st)
				}
			}
		})
	}
}

func TestUnsupported(t *testing.T) {
	type inner struct{ A int64 }
	type odd struct {
		ID     int64    `parquet:"id"`
		Nested inner    `parquet:"nested"`
		List   []int64  `parquet:"list"`
		UUID   [16]byte `parquet:"uuid"`
		Name   string   `parquet:"name"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[odd](&buf)
	if _, err := w.Write([]odd{{ID: 1, Nested: inner{2}, List: []int64{3, 4}, Name: "x"}, {ID: 5, Name: "y"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := "data/odd.parquet"
	r := bytes.NewReader(buf.Bytes())
	_, err := Inspect(r, r.Size(), path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "column nested") || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("Inspect: %v, want an error naming the path and column nested", err)
	}
	for col, what := range map[string]string{"list": "repeated INT64", "uuid": "FIXED_LEN_BYTE_ARRAY(16)", "nested": "nested"} {
		_, err := Read(r, r.Size(), path, nil, []string{"id", col})
		if err == nil || !strings.Contains(err.Error(), "column "+col+":") || !strings.Contains(err.Error(), what) {
			t.Errorf("Read of %s: %v, want an error naming it and %q", col, err, what)
		}
	}
	// The supported columns around them read.
	rec, err := Read(r, r.Size(), path, nil, []string{"name", "id"})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if got := [][]any{valuesOf(rec.Column(0)), valuesOf(rec.Column(1))}; !reflect.DeepEqual(got, [][]any{{int64(1), int64(5)}, {"x", "y"}}) {
		t.Errorf("id, name = %v", got)
	}
	if _, err := Read(r, r.Size(), path, nil, []string{"nope"}); err == nil || !strings.Contains(err.Error(), `no column "nope"`) {
		t.Errorf("Read of a missing column: %v", err)
	}
	if _, err := Read(r, r.Size(), path, []int{1}, []string{"id"}); err == nil || !strings.Contains(err.Error(), "no row group 1") {
		t.Errorf("Read of a missing row group: %v", err)
	}
}

func TestWriteErrors(t *testing.T) {
	schema, recs := records([]col{{name: "a", kind: "int", vals: []any{int64(1)}}}, []int{0, 1})
	other, _ := records([]col{{name: "b", kind: "int", vals: []any{int64(1)}}}, []int{0, 1})
	i32 := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.BinaryTypes.Binary, Nullable: true}}, nil)
	for _, tc := range []struct {
		name   string
		schema *arrow.Schema
		opts   WriteOptions
		want   string
	}{
		{"compression", schema, WriteOptions{Compression: "lzma"}, "unknown compression"},
		{"schema", other, WriteOptions{}, "the schema's b"},
		{"type", i32, WriteOptions{}, "column x: type binary is not supported"},
	} {
		rs := recs
		if tc.schema == i32 {
			rs = nil
		}
		if err := Write(&bytes.Buffer{}, tc.schema, rs, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestCorrupt checks that damaged files give errors that name the path,
// never panics or wrong rows silently.
func TestCorrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	cols := []col{genCol(r, "i", "int", 3000, 3, 0), genCol(r, "s", "string", 3000, 4, 1<<30), genCol(r, "d", "dict", 3000, 5, 9)}
	schema, recs := records(cols, []int{0, 3000})
	_, data := writeFile(t, schema, recs, WriteOptions{RowGroupRows: 1000, Compression: "none"})
	const path = "data/x.parquet"
	try := func(what string, b []byte) {
		t.Helper()
		rd := bytes.NewReader(b)
		_, err := Inspect(rd, rd.Size(), path)
		if err == nil {
			var rec arrow.Record
			rec, err = Read(rd, rd.Size(), path, nil, nil)
			if err == nil {
				rec.Release()
				return
			}
		}
		if !strings.HasPrefix(err.Error(), "read "+path+": ") {
			t.Errorf("%s: error %q does not start with the path", what, err)
		}
	}
	for _, n := range []int{0, 3, 4, 12, len(data) / 2, len(data) - 9, len(data) - 1} {
		try(fmt.Sprintf("truncated to %d bytes", n), data[:n])
	}
	garbage := make([]byte, 5000)
	for i := range garbage {
		garbage[i] = byte(r.Uint32())
	}
	try("garbage", garbage)
	try("garbage between magic", append(append([]byte("PAR1"), garbage...), "PAR1"...))
	for range 300 {
		b := slices.Clone(data)
		i := 4 + r.IntN(len(b)-12)
		b[i] ^= byte(1 + r.IntN(255))
		try(fmt.Sprintf("byte %d flipped", i), b)
	}

	// Read's error names the row group and column.
	b := slices.Clone(data)
	rd := bytes.NewReader(b)
	info, err := Inspect(rd, rd.Size(), path)
	if err != nil {
		t.Fatal(err)
	}
	_ = info
	pf, err := parquet.OpenFile(rd, rd.Size())
	if err != nil {
		t.Fatal(err)
	}
	chunk := pf.Metadata().RowGroups[2].Columns[1].MetaData
	for i := chunk.DataPageOffset + 20; i < chunk.DataPageOffset+40; i++ {
		b[i] ^= 0xff
	}
	_, err = Read(rd, rd.Size(), path, nil, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "read "+path+": row group 2 column s: ") {
		t.Errorf("damaged page: %v, want an error naming row group 2 column s", err)
	}
}

func TestSetBits(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 500 {
		n, pos := r.IntN(100), r.IntN(20)
		levels := make([]byte, n)
		for i := range levels {
			levels[i] = byte(r.IntN(2) * (1 + r.IntN(200)))
		}
		got := make([]byte, (pos+n+7)/8+1)
		want := slices.Clone(got)
		ones := 0
		for i, l := range levels {
			if l != 0 {
				want[(pos+i)>>3] |= 1 << ((pos + i) & 7)
				ones++
			}
		}
		if k := setBits(got, pos, levels); k != ones || !bytes.Equal(got, want) {
			t.Fatalf("setBits(pos %d, %v) = %d %08b, want %d %08b", pos, levels, k, got, ones, want)
		}
	}
}

// checkArray checks the invariants Dusk's kernels rely on: offsets that
// rise within the data, dictionary indices within the dictionary.
func checkArray(a arrow.Array) error {
	check := func(s *array.String) error {
		offs := s.ValueOffsets()
		if len(offs) != s.Len()+1 {
			return fmt.Errorf("%d offsets for %d strings", len(offs), s.Len())
		}
		for i := 1; i < len(offs); i++ {
			if offs[i] < offs[i-1] {
				return fmt.Errorf("offset %d falls", i)
			}
		}
		if s.Len() > 0 && int(offs[len(offs)-1]) > len(s.ValueBytes())+int(offs[0]) {
			return fmt.Errorf("offsets pass the data")
		}
		return nil
	}
	switch a := a.(type) {
	case *array.String:
		return check(a)
	case *array.Dictionary:
		d := kernel.DictValues(a)
		if err := check(d); err != nil {
			return fmt.Errorf("dictionary: %w", err)
		}
		for i, j := range a.Indices().(*array.Int32).Int32Values() {
			if a.IsValid(i) && (j < 0 || int(j) >= d.Len()) {
				return fmt.Errorf("row %d: index %d out of %d", i, j, d.Len())
			}
		}
	}
	return nil
}

// TestBuilders feeds builders pages made in memory, plain and
// dictionary-encoded, with a dictionary per chunk, against the values they
// stand for.
func TestBuilders(t *testing.T) {
	strs := func(vs ...string) parquet.Page {
		var data []byte
		offs := []uint32{0}
		for _, v := range vs {
			data = append(data, v...)
			offs = append(offs, uint32(len(data)))
		}
		return parquet.ByteArrayType.NewPage(0, len(vs), encoding.ByteArrayValues(data, offs))
	}
	indexed := func(dict parquet.Page, idx ...int32) parquet.Page {
		d := dict.Type().NewDictionary(0, int(dict.NumValues()), dict.Data())
		return d.Type().NewPage(0, len(idx), encoding.Int32Values(idx))
	}
	ints := func(vs ...int64) parquet.Page {
		return parquet.Int64Type.NewPage(0, len(vs), encoding.Int64Values(vs))
	}
	int32s := func(vs ...int32) parquet.Page {
		return parquet.Int32Type.NewPage(0, len(vs), encoding.Int32Values(vs))
	}
	dict1, dict2 := strs("b", "c"), strs("c", "a", "c")
	for _, tc := range []struct {
		col   column
		pages []parquet.Page
		want  []any
	}{
		{column{kind: parquet.ByteArray, typ: kernel.Dict}, []parquet.Page{strs("a", "b", "a"), indexed(dict1, 1, 0, 1), indexed(dict2, 0, 1, 2)},
			[]any{"a", "b", "a", "c", "b", "c", "c", "a", "c"}},
		{column{kind: parquet.ByteArray, typ: kernel.Dict}, []parquet.Page{indexed(dict2, 2, 1), indexed(dict1, 0, 1), strs("x", "c")},
			[]any{"c", "a", "b", "c", "x", "c"}},
		{column{kind: parquet.ByteArray, typ: kernel.String}, []parquet.Page{strs("a", "b", "a"), indexed(dict1, 1, 0, 1), indexed(dict2, 0, 1, 2)},
			[]any{"a", "b", "a", "c", "b", "c", "c", "a", "c"}},
		{column{kind: parquet.Int64, typ: kernel.Int64}, []parquet.Page{ints(5, -6), indexed(ints(7, 8), 1, 1, 0), ints(-1)},
			[]any{int64(5), int64(-6), int64(8), int64(8), int64(7), int64(-1)}},
		{column{kind: parquet.Int32, typ: arrow.PrimitiveTypes.Int32}, []parquet.Page{int32s(-1, 2), indexed(int32s(-2), 0)},
			[]any{int64(-1), int64(2), int64(-2)}},
		{column{kind: parquet.Int32, typ: arrow.PrimitiveTypes.Uint32, unsigned: true}, []parquet.Page{int32s(-1, 2), indexed(int32s(-2), 0)},
			[]any{int64(math.MaxUint32), int64(2), int64(math.MaxUint32 - 1)}},
	} {
		b := newBuilder(&tc.col, len(tc.want), 0)
		row := 0
		for _, p := range tc.pages {
			n, err := b.page(p, row, len(tc.want))
			if err != nil {
				t.Fatal(err)
			}
			row += n
		}
		a := b.finish()
		if err := checkArray(a); err != nil {
			t.Error(err)
		}
		if got := valuesOf(a); !reflect.DeepEqual(got, tc.want) || !arrow.TypeEqual(a.DataType(), tc.col.typ) {
			t.Errorf("%s: %v, want %v", a.DataType(), got, tc.want)
		}
		a.Release()
	}
	// An index outside the dictionary is an error, not a panic.
	for _, typ := range []arrow.DataType{kernel.Dict, kernel.String} {
		b := newBuilder(&column{kind: parquet.ByteArray, typ: typ}, 2, 0)
		if _, err := b.page(indexed(dict1, 0, 2), 0, 2); err == nil || !strings.Contains(err.Error(), "index 2 out of 2") {
			t.Errorf("%s: %v, want an index error", typ, err)
		}
	}
}

// TestForeignFiles reads files of other writers (testdata/README.md) and
// checks each column Dusk reads against parquet-go's own value reader.
func TestForeignFiles(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.parquet")
	if err != nil || len(paths) == 0 {
		t.Fatal("no test files", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r := bytes.NewReader(data)
			_, inspectErr := Inspect(r, r.Size(), path)
			f, err := open(r, r.Size(), path)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "read "+path+": ") {
					t.Errorf("error %q does not start with the path", err)
				}
				return
			}
			names := []string{}
			var unsupported []string
			for _, c := range f.cols {
				if c.err == nil {
					names = append(names, c.name)
				} else {
					unsupported = append(unsupported, c.name)
				}
			}
			if len(unsupported) > 0 && (inspectErr == nil || !strings.Contains(inspectErr.Error(), "column "+unsupported[0]+":")) {
				t.Errorf("Inspect: %v, want an error about column %s", inspectErr, unsupported[0])
			}
			if len(unsupported) == 0 && inspectErr != nil {
				t.Errorf("Inspect: %v", inspectErr)
			}
			rec, err := Read(r, r.Size(), path, nil, names)
			if strings.Contains(path, "malformed") {
				if err == nil || !strings.HasPrefix(err.Error(), "read "+path+": row group 0 column ") {
					t.Errorf("Read: %v, want an error naming the row group and column", err)
				}
				if err == nil {
					rec.Release()
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Release()
			for i, name := range names {
				c := f.cols[slices.IndexFunc(f.cols, func(c column) bool { return c.name == name })]
				if err := checkArray(rec.Column(i)); err != nil {
					t.Errorf("column %s: %v", name, err)
				}
				got, want := valuesOf(rec.Column(i)), referenceValues(t, f.file, &c)
				if len(got) != len(want) {
					t.Errorf("column %s: %d rows, want %d", name, len(got), len(want))
					continue
				}
				for r := range got {
					if !reflect.DeepEqual(got[r], want[r]) && fmt.Sprint(got[r]) != "NaN" {
						t.Errorf("column %s row %d = %v, want %v", name, r, got[r], want[r])
						break
					}
				}
			}
		})
	}
}

// referenceValues reads a column with parquet-go's value reader, the slow
// obvious way, as Read should return it.
func referenceValues(t *testing.T, f *parquet.File, c *column) []any {
	var out []any
	buf := make([]parquet.Value, 64)
	for _, rg := range f.RowGroups() {
		vr := parquet.NewColumnChunkValueReader(rg.ColumnChunks()[c.leaf])
		for {
			n, err := vr.ReadValues(buf)
			for _, v := range buf[:n] {
				var x any
				switch {
				case v.IsNull():
				case v.Kind() == parquet.Boolean:
					x = v.Boolean()
				case v.Kind() == parquet.Int32 && c.unsigned:
					x = int64(uint32(v.Int32()))
				case v.Kind() == parquet.Int96:
					i := v.Int96()
					x = (int64(i[2])-2440588)*86400e9 + (int64(i[0]) | int64(i[1])<<32)
				case v.Kind() == parquet.FixedLenByteArray:
					x = referenceDecimal(v.ByteArray(), c.typ.(*arrow.Decimal128Type))
				case v.Kind() == parquet.Int32:
					x = int64(v.Int32())
				case v.Kind() == parquet.Int64:
					x = v.Int64()
				case v.Kind() == parquet.Float:
					x = float64(v.Float())
				case v.Kind() == parquet.Double:
					x = v.Double()
				case v.Kind() == parquet.ByteArray:
					x = string(v.ByteArray())
				}
				out = append(out, x)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		vr.Close()
	}
	return out
}

// referenceDecimal reads a big-endian two's complement decimal as valuesOf
// gives it: the unscaled int64 up to precision 18, else the float64 value.
func referenceDecimal(b []byte, t *arrow.Decimal128Type) any {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	if t.Precision <= 18 {
		return v.Int64()
	}
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(v), new(big.Float).SetFloat64(math.Pow10(int(t.Scale)))).Float64()
	return f
}

// TestWriteSlices writes records that are slices of a larger one: arrays
// with offsets into their buffers.
func TestWriteSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	cols := []col{
		genCol(r, "i", "int", 1000, 3, 0), genCol(r, "f", "float", 1000, 4, 0), genCol(r, "b", "bool", 1000, 5, 0),
		genCol(r, "s", "string", 1000, 6, 1<<30), genCol(r, "d", "dict", 1000, 7, 10),
	}
	schema, recs := records(cols, []int{0, 1000})
	whole := recs[0]
	defer whole.Release()
	a, b := whole.NewSlice(3, 501), whole.NewSlice(501, 997)
	defer a.Release()
	defer b.Release()
	path, _ := writeFile(t, schema, []arrow.Record{a, b}, WriteOptions{RowGroupRows: 200})
	rec := readFile(t, path, nil, nil)
	defer rec.Release()
	checkRecord(t, rec, cols, nil, allRows(997)[3:])
}

// chunkEncodings are the encodings of the first row group's chunk of
// column c in the file at path.
func chunkEncodings(t *testing.T, path string, c int) []format.Encoding {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pf.Metadata().RowGroups[0].Columns[c].MetaData.Encoding
}

// TestFloatBounds writes float columns with infinities, -0 and now and
// then a NaN, and checks their bounds: exact, or none. parquet-go's
// vectorized bounds of floats among which a NaN stands can miss the
// minimum (a chunk holding -Inf said -0.125), and a reader that skipped by
// them lost rows; Dusk writes no bounds for a column holding a NaN. Bounds
// of floats in a file parquet-go wrote without Dusk's word for them are not
// trusted.
func TestFloatBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	for trial := range 300 {
		vals := make([]float64, 1+r.IntN(400))
		nan := false
		for i := range vals {
			switch k := r.IntN(60); {
			case k == 0:
				vals[i], nan = math.NaN(), true
			case k == 1:
				vals[i] = math.Inf(1 - 2*r.IntN(2))
			case k == 2:
				vals[i] = math.Copysign(0, -1)
			default:
				vals[i] = float64(r.IntN(9)-4) / 8
			}
		}
		b := array.NewFloat64Builder(memory.DefaultAllocator)
		b.AppendValues(vals, nil)
		rec := array.NewRecord(schema, []arrow.Array{b.NewArray()}, int64(len(vals)))
		var buf bytes.Buffer
		if err := Write(&buf, schema, []arrow.Record{rec}, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		info, err := Inspect(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "x.parquet")
		if err != nil {
			t.Fatal(err)
		}
		st := info.RowGroups[0].Columns[0]
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range vals {
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		switch {
		case nan && st.HasMinMax:
			t.Errorf("trial %d: bounds [%v, %v] for a column holding a NaN", trial, st.MinFloat, st.MaxFloat)
		case !nan && (!st.HasMinMax || st.MinFloat != lo || st.MaxFloat != hi):
			t.Errorf("trial %d: bounds [%v, %v] (known: %v), want [%v, %v]", trial, st.MinFloat, st.MaxFloat, st.HasMinMax, lo, hi)
		}
	}

	// A file parquet-go wrote by itself: its float bounds are not used,
	// its integers' are.
	type row struct {
		F float64 `parquet:"f"`
		I int64   `parquet:"i"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	if _, err := w.Write([]row{{F: math.Inf(-1), I: 1}, {F: 2, I: 3}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	info, err := Inspect(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "g.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if f, i := info.RowGroups[0].Columns[0], info.RowGroups[0].Columns[1]; f.HasMinMax || !i.HasMinMax {
		t.Errorf("parquet-go's own file: float bounds known %v, integer bounds known %v; want false, true", f.HasMinMax, i.HasMinMax)
	}
}

// TestDamagedFooters: a file too short to hold a footer, or whose footer
// is encrypted (PARE) or not Parquet's, fails naming the file and what is
// wrong, allocating little: parquet-go allocated the length such a footer
// claims, up to 4 GiB (issue 54, kinds 1 and 2).
func TestDamagedFooters(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	schema, recs := records([]col{genCol(r, "i", "int", 100, 3, 0)}, []int{0, 100})
	_, data := writeFile(t, schema, recs, WriteOptions{})
	le := func(n uint32) string { return string([]byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)}) }
	pare := slices.Clone(data)
	copy(pare[len(pare)-4:], "PARE")
	noHead := slices.Clone(data)
	copy(noHead, "XXXX")
	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"magics alone", []byte("PAR1PAR1"), "not a Parquet file: 8 bytes"},
		{"a length over the header's magic", []byte("PAR1" + le(0xfffffff0) + "PAR1")[:11], "not a Parquet file: 11 bytes"},
		{"a length past the file", []byte("PAR1" + "x" + le(0xfffffff0) + "PAR1"), "the footer claims 4294967280 bytes"},
		{"an encrypted footer", pare, "the footer is encrypted"},
		{"no header magic", noHead, "not a Parquet file: it starts with"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Inspect(bytes.NewReader(c.file), int64(len(c.file)), "data/bad.parquet")
		runtime.ReadMemStats(&after)
		if err == nil || !strings.HasPrefix(err.Error(), "read data/bad.parquet: "+c.want) {
			t.Errorf("%s: %v, want an error naming the file and %q", c.name, err, c.want)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
			t.Errorf("%s: allocated %d bytes", c.name, got)
		}
	}
}

// withFooter is a valid file with its footer changed by edit.
var withFooter = parquettest.WithFooter

// TestDamagedClaims: a row group that claims more rows than its pages
// hold fails before the columns are allocated for the claim (a decimal
// column of 2^31-1 claimed rows had 32 GiB allocated and the process
// died; issue 54, kind 3), and a read that would need more memory than
// the process may use fails naming the file.
func TestDamagedClaims(t *testing.T) {
	typ := &arrow.Decimal128Type{Precision: 30, Scale: 4}
	b := array.NewDecimal128Builder(memory.DefaultAllocator, typ)
	for i := range 100 {
		b.Append(decimal128.FromI64(int64(i)))
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: typ, Nullable: true}}, nil)
	rec := array.NewRecord(schema, []arrow.Array{b.NewArray()}, 100)
	_, data := writeFile(t, schema, []arrow.Record{rec}, WriteOptions{})
	bad := withFooter(t, data, func(m *format.FileMetaData) {
		m.NumRows, m.RowGroups[0].NumRows = math.MaxInt32, math.MaxInt32
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(bytes.NewReader(bad), int64(len(bad)), "data/bad.parquet", nil, nil)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "read data/bad.parquet: row group 0 column d: its pages hold 100 values, the row group 2147483647 rows") {
		t.Errorf("rows claimed past the pages: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("rows claimed past the pages: allocated %d bytes", got)
	}

	// Past the process's memory limit (a worker's): refused before reading.
	old := debug.SetMemoryLimit(1 << 10)
	_, err = Read(bytes.NewReader(data), int64(len(data)), "data/big.parquet", nil, nil)
	debug.SetMemoryLimit(old)
	if err == nil || !strings.Contains(err.Error(), "read data/big.parquet: 100 rows of 1 columns need") || !strings.Contains(err.Error(), "more than this process may use") {
		t.Errorf("a read past the memory limit: %v", err)
	}
}
