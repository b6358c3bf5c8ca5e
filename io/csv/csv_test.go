package csv

import (
	stdcsv "encoding/csv"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/io/storage"
)

// randomCSV writes rows of (int, float, string, bool) with nulls, quotes,
// negative numbers and long decimals, and returns the text with the values
// a reference reader (encoding/csv) finds in it.
func randomCSV(r *rand.Rand, rows int, crlf bool) string {
	var b strings.Builder
	nl := "\n"
	if crlf {
		nl = "\r\n"
	}
	b.WriteString("i,f,s,b" + nl)
	words := []string{"alpha", "beta", `say "hi"`, "comma,inside", "line\nbreak", "", "NA", "id042"}
	for k := 0; k < rows; k++ {
		fields := make([]string, 4)
		switch r.Intn(8) {
		case 0:
			fields[0] = ""
		case 1:
			fields[0] = strconv.FormatInt(r.Int63()-r.Int63(), 10) // beyond 18 digits: slow path
		default:
			fields[0] = strconv.Itoa(r.Intn(2000) - 1000)
		}
		switch r.Intn(6) {
		case 0:
			fields[1] = "NaN"
		case 1:
			fields[1] = strconv.FormatFloat(r.NormFloat64()*1e10, 'e', -1, 64)
		case 2:
			fields[1] = strconv.FormatFloat(r.Float64(), 'f', -1, 64) // 17 digits
		default:
			fields[1] = strconv.FormatFloat(float64(r.Intn(100000000))/1e6, 'f', 6, 64)
		}
		w := words[r.Intn(len(words))]
		if strings.ContainsAny(w, "\",\n") {
			w = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
		}
		fields[2] = w
		fields[3] = []string{"true", "False", ""}[r.Intn(3)]
		b.WriteString(strings.Join(fields, ","))
		b.WriteString(nl)
		if r.Intn(50) == 0 {
			b.WriteString(nl) // a blank line, skipped
		}
	}
	return b.String()
}

var testSchema = Schema{{Name: "i", Type: Int64}, {Name: "f", Type: Float64}, {Name: "s", Type: String, Dictionary: true}, {Name: "b", Type: Bool}}

// checkAgainstReference parses text with encoding/csv and compares every
// value with rec's.
func checkAgainstReference(t *testing.T, text string, rec arrow.Record) {
	t.Helper()
	rd := stdcsv.NewReader(strings.NewReader(text))
	want, err := rd.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want = want[1:] // header
	if int(rec.NumRows()) != len(want) {
		t.Fatalf("%d rows, reference has %d", rec.NumRows(), len(want))
	}
	nulls := newNullSet(DefaultNullValues)
	is := rec.Column(0).(*array.Int64)
	fs := rec.Column(1).(*array.Float64)
	ss := kernel.StringsOf(rec.Column(2))
	bs := rec.Column(3).(*array.Boolean)
	for k, row := range want {
		if nulls.match([]byte(row[0])) != is.IsNull(k) {
			t.Fatalf("row %d: i null=%v, field %q", k, is.IsNull(k), row[0])
		}
		if is.IsValid(k) {
			v, _ := strconv.ParseInt(row[0], 10, 64)
			if is.Value(k) != v {
				t.Fatalf("row %d: i = %d, want %d", k, is.Value(k), v)
			}
		}
		if fs.IsValid(k) {
			v, _ := strconv.ParseFloat(row[1], 64)
			if fs.Value(k) != v { // exactly: the fast path must round correctly
				t.Fatalf("row %d: f = %v, want %v (%q)", k, fs.Value(k), v, row[1])
			}
		} else if !nulls.match([]byte(row[1])) {
			t.Fatalf("row %d: f is null, field %q", k, row[1])
		}
		if nulls.match([]byte(row[2])) != rec.Column(2).IsNull(k) {
			t.Fatalf("row %d: s null=%v, field %q", k, rec.Column(2).IsNull(k), row[2])
		}
		if rec.Column(2).IsValid(k) && ss.Value(k) != row[2] {
			t.Fatalf("row %d: s = %q, want %q", k, ss.Value(k), row[2])
		}
		if bs.IsValid(k) && bs.Value(k) != strings.EqualFold(row[3], "true") {
			t.Fatalf("row %d: b = %v, field %q", k, bs.Value(k), row[3])
		}
	}
}

func TestParseMatchesReference(t *testing.T) {
	for _, rows := range []int{0, 1, 17, 5000} {
		for _, crlf := range []bool{false, true} {
			for _, noDict := range []bool{false, true} {
				t.Run(fmt.Sprintf("rows=%d/crlf=%v/nodict=%v", rows, crlf, noDict), func(t *testing.T) {
					text := randomCSV(rand.New(rand.NewSource(int64(rows))), rows, crlf)
					data := []byte(text[strings.IndexByte(text, '\n')+1:])
					rec, err := Parse(data, testSchema, Options{NoDictionary: noDict})
					if err != nil {
						t.Fatal(err)
					}
					defer rec.Release()
					checkAgainstReference(t, text, rec)
				})
			}
		}
	}
}

// Long runs of regular rows, parsed a chunk at a time, broken by a quoted
// field, a blank line or a change of line break now and then, and a last
// row without a line break, read as encoding/csv reads them.
func TestParseLongRegularRuns(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var b strings.Builder
	b.WriteString("i,f,s,b\n")
	nl := "\n"
	for k := range 20000 {
		if r.Intn(3000) == 0 {
			nl = map[string]string{"\n": "\r\n", "\r\n": "\n"}[nl]
		}
		s := fmt.Sprintf("id%d", r.Intn(5000))
		switch r.Intn(1500) {
		case 0:
			s = `"quoted, with a comma"`
		case 1:
			s = "NA"
		case 2:
			s = "a-string-longer-than-fifteen-bytes"
		case 3:
			b.WriteString(nl) // a blank line
		}
		i := strconv.Itoa(r.Intn(1e9) - 5e8)
		if r.Intn(1000) == 0 {
			i = "" // null
		}
		fmt.Fprintf(&b, "%s,%.*f,%s,%v", i, r.Intn(7), r.Float64()*1000-500, s, r.Intn(2) == 0)
		if k < 19999 {
			b.WriteString(nl)
		}
	}
	text := b.String()
	data := []byte(text[strings.IndexByte(text, '\n')+1:])
	for _, noDict := range []bool{false, true} {
		rec, err := Parse(data, testSchema, Options{NoDictionary: noDict})
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstReference(t, text, rec)
		rec.Release()
	}
}

// Of two bad fields, the error names the first in row order, though the
// chunk parser reads a column at a time.
func TestFirstErrorInRowOrder(t *testing.T) {
	var b strings.Builder
	for k := range 100 {
		i, v := strconv.Itoa(k), "true"
		if k == 40 {
			i = "x40"
		}
		if k == 30 {
			v = "maybe"
		}
		fmt.Fprintf(&b, "%s,1.5,s,%s\n", i, v)
	}
	_, err := Parse([]byte(b.String()), testSchema, Options{})
	if want := `line 31 column b: cannot parse "maybe" as bool`; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v; want %q", err, want)
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Splitting a file into blocks of any size reads every line exactly once.
func TestBlocksCoverEveryLineOnce(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(7))
	var b strings.Builder
	b.WriteString("i,f,s,b\n")
	for k := 0; k < 3000; k++ {
		fmt.Fprintf(&b, "%d,%d.5,w%d,true\n", k, k, r.Intn(50))
	}
	text := b.String()
	path := writeFile(t, dir, "data.csv", text)
	files, err := storage.List(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{7, 64, 1000, 4096, int64(len(text)), 1 << 30} {
		var ids []int64
		for _, blk := range Blocks(files, size) {
			rec, err := ReadBlock(blk, testSchema, Options{})
			if err != nil {
				t.Fatalf("size %d block %+v: %v", size, blk, err)
			}
			ids = append(ids, rec.Column(0).(*array.Int64).Int64Values()...)
			rec.Release()
		}
		if len(ids) != 3000 {
			t.Fatalf("block size %d: %d rows, want 3000", size, len(ids))
		}
		for k, v := range ids {
			if v != int64(k) {
				t.Fatalf("block size %d: row %d has id %d", size, k, v)
			}
		}
	}
}

func TestErrorsNameFileLineAndColumn(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("id,area,num_clicks\n")
	for k := 0; k < 200; k++ {
		fmt.Fprintf(&b, "%d,a%d,%d\n", k, k%3, k)
	}
	good := b.String()
	tests := []struct {
		name, text string
		schema     Schema
		want       string
	}{
		{"too few fields", good + "200,a1\n", nil, "line 202: expected 3 fields, found 2"},
		{"too many fields", good + "200,a1,3,4\n", nil, "line 202: expected 3 fields, found more"},
		{"not an int", good + "200,a1,many\n", nil, `line 202 column num_clicks: cannot parse "many" as int64`},
		{"unclosed quote", good + "200,\"a1,3\n", nil, "line 202 column area: a quoted field is not closed"},
		{"stray quote", good + "200,a\"1,3\n", nil, "line 202 column area: a quote inside an unquoted field"},
	}
	schema := Schema{{Name: "id", Type: Int64}, {Name: "area", Type: String, Dictionary: true}, {Name: "num_clicks", Type: Int64}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, strings.ReplaceAll(tt.name, " ", "-")+".csv", tt.text)
			files, _ := storage.List(path)
			var err error
			// Small blocks: the bad line is far from its block's start.
			for _, blk := range Blocks(files, 512) {
				var rec arrow.Record
				if rec, err = ReadBlock(blk, schema, Options{}); err != nil {
					break
				}
				rec.Release()
			}
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want the file %s and %q", err, path, tt.want)
			}
		})
	}
}

func TestInfer(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "x.csv",
		"i,f,s,b,empty,mixed\n1,1.5,x,true,,1\n-2,NaN,y,False,,2.5\n,3,\"z,\",TRUE,NA,\n")
	got, err := Infer(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := Schema{{Name: "i", Type: Int64}, {Name: "f", Type: Float64}, {Name: "s", Type: String, Dictionary: true}, {Name: "b", Type: Bool}, {Name: "empty", Type: String, Dictionary: true}, {Name: "mixed", Type: Float64}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Infer = %v, want %v", got, want)
	}
	got, err = Infer(path, Options{Types: map[string]Type{"i": Float64}})
	if err != nil || got[0].Type != Float64 {
		t.Fatalf("explicit type: %v, %v", got, err)
	}
	if _, err := Infer(path, Options{Types: map[string]Type{"nope": Int64}}); err == nil || !strings.Contains(err.Error(), `"nope", which is not a column`) {
		t.Fatalf("type for a missing column: %v", err)
	}
	if _, err := Infer(path, Options{Types: map[string]Type{"i": "decimal"}}); err == nil || !strings.Contains(err.Error(), `unknown type "decimal"`) {
		t.Fatalf("unknown type: %v", err)
	}
}

// TestInferLeadingZeros: a column whose values have leading zeros (ZIP
// codes, ids) is text, so the zeros stay; 0, 0.5 and -0.25 are numbers.
// "01873" was read as the int64 1873.
func TestInferLeadingZeros(t *testing.T) {
	path := writeFile(t, t.TempDir(), "x.csv", "zip,code,n,f\n01873,-007,0,0.5\n10001,12,3,-0.25\n")
	got, err := Infer(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := Schema{{Name: "zip", Type: String, Dictionary: true}, {Name: "code", Type: String, Dictionary: true},
		{Name: "n", Type: Int64}, {Name: "f", Type: Float64}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Infer = %v, want %v", got, want)
	}
}

func TestHeaderMismatchAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.csv", "x,y\n1,2\n")
	b := writeFile(t, dir, "b.csv", "x,z\n1,2\n")
	schema := Schema{{Name: "x", Type: Int64}, {Name: "y", Type: Int64}}
	files, _ := storage.List(b)
	_, err := ReadBlock(Blocks(files, 1<<20)[0], schema, Options{})
	if err == nil || !strings.Contains(err.Error(), "b.csv") || !strings.Contains(err.Error(), "differs") {
		t.Fatalf("err = %v", err)
	}
}

func TestFastFloatPathIsExact(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var b strings.Builder
	var want []float64
	for k := 0; k < 100000; k++ {
		digits := 1 + r.Intn(15)
		frac := r.Intn(digits + 1)
		mant := r.Int63n(int64(math.Pow10(digits)))
		s := strconv.FormatInt(mant, 10)
		for len(s) < digits {
			s = "0" + s
		}
		s = s[:digits-frac] + "." + s[digits-frac:]
		if r.Intn(2) == 0 {
			s = "-" + s
		}
		v, _ := strconv.ParseFloat(s, 64)
		want = append(want, v)
		b.WriteString(s)
		b.WriteByte('\n')
	}
	rec, err := Parse([]byte(b.String()), Schema{{Name: "f", Type: Float64}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := rec.Column(0).(*array.Float64).Float64Values()
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("value %d: %v, strconv gives %v", k, got[k], want[k])
		}
	}
}

// Infer marks low-cardinality string columns for dictionary encoding and
// leaves mostly-distinct ones plain.
func TestInferDictionary(t *testing.T) {
	var b strings.Builder
	b.WriteString("area,uid\n")
	for k := 0; k < 1000; k++ {
		fmt.Fprintf(&b, "a%d,u%d\n", k%5, k)
	}
	path := writeFile(t, t.TempDir(), "d.csv", b.String())
	got, err := Infer(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Dictionary || got[1].Dictionary {
		t.Fatalf("Infer = %+v: want area dictionary-encoded and uid plain", got)
	}
	got, _ = Infer(path, Options{NoDictionary: true})
	if got[0].Dictionary {
		t.Fatalf("NoDictionary: %+v", got)
	}
}

// A string reaches the same dictionary entry whether it was quoted or not,
// short or long.
func TestDictionaryHasNoDuplicates(t *testing.T) {
	text := "id042\n\"id042\"\nlonger-than-seven\n\"longer-than-seven\"\nid042\n\n\"\"\n"
	rec, err := Parse([]byte(text), Schema{{Name: "s", Type: String, Dictionary: true}}, Options{NoDefaultNulls: true, NullValues: []string{"-"}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	s := kernel.StringsOf(rec.Column(0))
	if s.Dict == nil || s.Dict.Len() != 3 {
		t.Fatalf("dictionary %v, want 3 distinct values", s.Dict)
	}
	want := []string{"id042", "id042", "longer-than-seven", "longer-than-seven", "id042", ""}
	for i, w := range want {
		if got := s.Value(i); got != w {
			t.Fatalf("row %d = %q, want %q", i, got, w)
		}
	}
}

// A dictionary column whose first value longer than seven bytes comes
// after 17 or more short ones reads back: the reader once looped forever
// there, as db-benchmark's join tables of 1e8 rows made it do.
func TestDictionaryWidens(t *testing.T) {
	for _, short := range []int{16, 17, 26, 300} {
		var text strings.Builder
		var want []string
		for i := range short + 100 {
			v := fmt.Sprintf("id%d", i)
			if i >= short {
				v = fmt.Sprintf("id%09d", i)
			}
			want = append(want, v)
			text.WriteString(v + "\n")
		}
		rec, err := Parse([]byte(text.String()), Schema{{Name: "s", Type: String, Dictionary: true}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := kernel.StringsOf(rec.Column(0))
		for i, w := range want {
			if got := s.Value(i); got != w {
				t.Fatalf("%d short values: row %d = %q, want %q", short, i, got, w)
			}
		}
		rec.Release()
	}
}

// A dictionary column whose table outgrows the cache midway, with long
// strings, quoted ones and nulls among the short ones, reads back every
// row's value.
func TestDictionaryOutgrowsCache(t *testing.T) {
	var text strings.Builder
	var want []string
	for i := range 60000 {
		v := fmt.Sprintf("k%d", (i*7919)%20000)
		switch i % 97 {
		case 0:
			v = fmt.Sprintf("a-longer-string-%d", i%50)
		case 1:
			v = ""
		}
		want = append(want, v)
		if i%89 == 0 || v == "" { // an empty line would be a blank line, skipped
			fmt.Fprintf(&text, "%q\n", v)
		} else {
			text.WriteString(v + "\n")
		}
	}
	rec, err := Parse([]byte(text.String()), Schema{{Name: "s", Type: String, Dictionary: true}}, Options{NoDefaultNulls: true, NullValues: []string{"-"}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	s := kernel.StringsOf(rec.Column(0))
	if s.Dict == nil {
		t.Fatalf("the column is plain; want a dictionary")
	}
	seen := map[string]bool{}
	for i := range s.Dict.Len() {
		if v := s.Dict.Value(i); seen[v] {
			t.Fatalf("%q twice in the dictionary", v)
		} else {
			seen[v] = true
		}
	}
	for i, w := range want {
		if got := s.Value(i); got != w {
			t.Fatalf("row %d = %q, want %q", i, got, w)
		}
	}
}

// Parsing only some columns gives those columns as a full parse does.
func TestParseColumns(t *testing.T) {
	text := randomCSV(rand.New(rand.NewSource(7)), 3000, false)
	data := []byte(text[strings.IndexByte(text, '\n')+1:])
	full, err := Parse(data, testSchema, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Release()
	for _, cols := range [][]string{{"s"}, {"i", "b"}, {"f", "s"}, {}} {
		rec, err := Parse(data, testSchema, Options{Columns: cols})
		if err != nil {
			t.Fatalf("%v: %v", cols, err)
		}
		if int(rec.NumCols()) != len(cols) || rec.NumRows() != full.NumRows() {
			t.Fatalf("%v: %d columns, %d rows; want %d, %d", cols, rec.NumCols(), rec.NumRows(), len(cols), full.NumRows())
		}
		for i, name := range cols {
			want := full.Column(full.Schema().FieldIndices(name)[0])
			if rec.ColumnName(i) != name || !array.Equal(rec.Column(i), want) {
				t.Fatalf("%v: column %d (%s) differs from the full parse", cols, i, rec.ColumnName(i))
			}
		}
		rec.Release()
	}
}
