package dataframe_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe"
)

// TestFromArrowNormalizes feeds columns of types the kernels do not use,
// which FromArrow converts: small ints to int64, float32 to float64,
// dictionary and large strings to plain strings.
func TestFromArrowNormalizes(t *testing.T) {
	ctx := newClient(t)
	mem := memory.DefaultAllocator
	dict := func(index arrow.DataType) *arrow.DictionaryType {
		return &arrow.DictionaryType{IndexType: index, ValueType: arrow.BinaryTypes.String}
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "d32", Type: dict(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "d8", Type: dict(arrow.PrimitiveTypes.Int8), Nullable: true},
		{Name: "d16u", Type: dict(arrow.PrimitiveTypes.Uint16), Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	words := []string{"red", "green", "blue", "green"}
	// want holds every row, across records, as the frame should give it.
	var want [][]any
	build := func(n, seed int) arrow.Record {
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		for i := 0; i < n; i++ {
			k := seed*100 + i
			if k%5 == 3 { // a null in every column
				for c := range schema.Fields() {
					b.Field(c).AppendNull()
				}
				want = append(want, make([]any, len(schema.Fields())))
				continue
			}
			w := words[k%len(words)]
			b.Field(0).(*array.Int32Builder).Append(int32(k * 1000))
			b.Field(1).(*array.Int8Builder).Append(int8(-(k % 100)))
			b.Field(2).(*array.Uint16Builder).Append(uint16(60000 + k))
			b.Field(3).(*array.Float32Builder).Append(float32(k) + 0.25)
			b.Field(4).(*array.BinaryDictionaryBuilder).AppendString(w)
			b.Field(5).(*array.BinaryDictionaryBuilder).AppendString(w + "!")
			b.Field(6).(*array.BinaryDictionaryBuilder).AppendString(strings.ToUpper(w))
			b.Field(7).(*array.LargeStringBuilder).Append(fmt.Sprint("large ", k))
			b.Field(8).(*array.BooleanBuilder).Append(k%2 == 0)
			want = append(want, []any{int64(k * 1000), int64(-(k % 100)), int64(60000 + k), float64(float32(k) + 0.25),
				w, w + "!", strings.ToUpper(w), fmt.Sprint("large ", k), k%2 == 0})
		}
		return b.NewRecord()
	}
	recs := []arrow.Record{build(7, 0), build(0, 1), build(12, 2), build(0, 3), build(1, 4)}
	f := dataframe.FromArrow(recs...)
	for _, r := range recs {
		r.Release()
	}
	if err := f.Err(); err != nil {
		t.Fatalf("FromArrow: %v", err)
	}
	if f.NumPartitions() != 5 {
		t.Errorf("%d partitions, want 5", f.NumPartitions())
	}
	cols := []string{"i32", "i8", "u16", "f32", "d32", "d8", "d16u", "ls", "b"}
	types := []string{"int32", "int8", "uint16", "float32", "utf8", "utf8", "utf8", "utf8", "bool"} // kept as they are
	checkTable(t, f, compute(t, ctx, f), cols, types, want, 0)

	// The normalized columns work in expressions and groupings.
	g := f.Filter(col("d8").Ne("blue!").And(col("i32").Gt(0))).GroupBy("d32").Agg(dataframe.Sum("i8"), dataframe.Max("f32"))
	sums, maxes := map[string]int64{}, map[string]float64{}
	for _, w := range want {
		if w[5] == nil || w[5] == "blue!" || w[0].(int64) <= 0 {
			continue
		}
		sums[w[4].(string)] += w[1].(int64)
		maxes[w[4].(string)] = max(maxes[w[4].(string)], w[3].(float64))
	}
	checkTable(t, g, compute(t, ctx, g), []string{"d32", "sum(i8)", "max(f32)"}, []string{"utf8", "int64", "float64"},
		[][]any{{"green", sums["green"], maxes["green"]}, {"red", sums["red"], maxes["red"]}}, 0)
}

// TestFromArrowSlices feeds records that are slices of larger ones, whose
// columns start at an offset into their buffers.
func TestFromArrowSlices(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(20, 100)
	whole := record(rows)
	defer whole.Release()
	a, b := whole.NewSlice(3, 40), whole.NewSlice(41, 41)
	c := whole.NewSlice(45, 97)
	f := dataframe.FromArrow(a, b, c)
	a.Release()
	b.Release()
	c.Release()
	var want [][]any
	for _, r := range append(append([]testRow(nil), rows[3:40]...), rows[45:97]...) {
		want = append(want, r.values())
	}
	checkTable(t, f, compute(t, ctx, f), testColumns, testTypes, want, 0)
	g := f.GroupBy("KI").Agg(dataframe.Count("S"))
	counts := map[int64]int64{}
	for _, w := range want {
		if w[9] != nil && w[5] != nil {
			counts[w[9].(int64)]++
		}
	}
	var wantG [][]any
	for k := int64(0); k < 4; k++ {
		wantG = append(wantG, []any{k, counts[k]})
	}
	checkTable(t, g, compute(t, ctx, g), []string{"KI", "count(S)"}, []string{"int64", "int64"}, wantG, 0)
}

type person struct {
	Name    string
	Age     int
	Height  float64
	Member  bool
	Score   *float64
	Nick    *string
	Visits  *int
	Active  *bool
	Small   int32 `dusk:"small"`
	Ratio   float32
	Byte    uint8
	private int
}

func TestFromRecords(t *testing.T) {
	ctx := newClient(t)
	var people []person
	var want [][]any
	for i := 0; i < 10; i++ {
		p := person{Name: fmt.Sprint("p", i), Age: 20 + i, Height: 1.5 + float64(i)/8, Member: i%3 == 0,
			Small: int32(-i), Ratio: float32(i) / 4, Byte: uint8(250 + i%5), private: i}
		row := []any{p.Name, int64(p.Age), p.Height, p.Member, nil, nil, nil, nil, int64(-i), float64(i) / 4, int64(p.Byte)}
		if i%2 == 0 {
			p.Score, row[4] = ptr(float64(i)*1.25), float64(i)*1.25
		}
		if i%3 != 1 {
			p.Nick, row[5] = ptr(fmt.Sprint("n", i)), fmt.Sprint("n", i)
		}
		if i%4 != 2 {
			p.Visits, row[6] = ptr(i*i), int64(i*i)
		}
		if i%5 != 4 {
			p.Active, row[7] = ptr(i%2 == 1), i%2 == 1
		}
		people = append(people, p)
		want = append(want, row)
	}
	cols := []string{"Name", "Age", "Height", "Member", "Score", "Nick", "Visits", "Active", "small", "Ratio", "Byte"}
	types := []string{"utf8", "int64", "float64", "bool", "float64", "utf8", "int64", "bool", "int64", "float64", "int64"}
	for _, n := range []int{1, 3, 16} {
		t.Run(fmt.Sprint("npartitions=", n), func(t *testing.T) {
			f := dataframe.FromRecords(people, n)
			if err := f.Err(); err != nil {
				t.Fatal(err)
			}
			if f.NumPartitions() != n {
				t.Errorf("%d partitions, want %d", f.NumPartitions(), n)
			}
			checkTable(t, f, compute(t, ctx, f), cols, types, want, 0)
			if got, err := f.Len(ctx); err != nil || got != 10 {
				t.Errorf("Len = %d, %v", got, err)
			}
		})
	}
	f := dataframe.FromRecords([]person{}, 3)
	checkTable(t, f, compute(t, ctx, f), cols, types, nil, 0)
}

// writeFile writes text to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readCSV reads pattern and checks the frame's partitions, columns, types and rows.
func readCSV(t *testing.T, pattern string, opts dataframe.CSVOptions, parts int, cols, types []string, want [][]any) *dataframe.Frame {
	t.Helper()
	ctx := newClient(t)
	f := dataframe.ReadCSV(pattern, opts)
	if err := f.Err(); err != nil {
		t.Fatalf("ReadCSV: %v", err)
	}
	if parts > 0 && f.NumPartitions() != parts {
		t.Errorf("%d partitions, want %d", f.NumPartitions(), parts)
	}
	checkTable(t, f, compute(t, ctx, f), cols, types, want, 0)
	if n, err := f.Len(ctx); err != nil || n != int64(len(want)) {
		t.Errorf("Len = %d, %v; want %d", n, err, len(want))
	}
	return f
}

func TestReadCSVInfersTypes(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "people.csv", ""+
		"id,price,name,ok,empty,mixed\n"+
		"1,2.5,ann,true,,1\n"+
		"2,-3,\"bo, jr\",False,,x\n"+
		"3,,\"say \"\"hi\"\"\",,NA,2.5\n"+
		"-4,1e3,NA,TRUE,,\n"+
		"5,7,\"two\nlines\",false,,3\n")
	readCSV(t, path, dataframe.CSVOptions{}, 1,
		[]string{"id", "price", "name", "ok", "empty", "mixed"},
		[]string{"int64", "float64", "utf8", "bool", "utf8", "utf8"},
		[][]any{
			{int64(1), 2.5, "ann", true, nil, "1"},
			{int64(2), -3.0, "bo, jr", false, nil, "x"},
			{int64(3), nil, `say "hi"`, nil, nil, "2.5"},
			{int64(-4), 1000.0, nil, true, nil, nil},
			{int64(5), 7.0, "two\nlines", false, nil, "3"},
		})
}

func TestReadCSVGlob(t *testing.T) {
	dir := t.TempDir()
	rows := genRows(21, 120)
	writeCSV(t, filepath.Join(dir, "2014-01.csv"), testColumns, rows[:50])
	writeCSV(t, filepath.Join(dir, "2014-02.csv"), testColumns, rows[50:50])
	writeCSV(t, filepath.Join(dir, "2014-03.csv"), testColumns, rows[50:120])
	writeCSV(t, filepath.Join(dir, "2015-01.csv"), testColumns, genRows(22, 30)) // not matched
	var want [][]any
	for _, r := range rows {
		want = append(want, r.values())
	}
	// Types inferred from the first file, which has every kind of value.
	readCSV(t, filepath.Join(dir, "2014-*.csv"), dataframe.CSVOptions{}, 3, testColumns, testTypes, want)
}

func TestReadCSVDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "b.csv", "k,v\nb,2\nb,3\n")
	writeFile(t, dir, "a.csv", "k,v\na,1\n")
	writeFile(t, dir, "sub/c.csv", "k,v\nc,4\n")
	writeFile(t, dir, ".hidden.csv", "not,a,csv,file\n")
	writeFile(t, dir, "_SUCCESS", "")
	want := [][]any{{"a", int64(1)}, {"b", int64(2)}, {"b", int64(3)}, {"c", int64(4)}}
	// The directory is one datum: its small files share a partition.
	readCSV(t, dir, dataframe.CSVOptions{}, 1, []string{"k", "v"}, []string{"utf8", "int64"}, want)
	// Each entry of the directory is a datum: a.csv, b.csv and sub/.
	readCSV(t, filepath.Join(dir, "*"), dataframe.CSVOptions{}, 3, []string{"k", "v"}, []string{"utf8", "int64"}, want)
}

// TestReadCSVBlocks splits one large file into many partitions at small
// block sizes, with both kinds of line break.
func TestReadCSVBlocks(t *testing.T) {
	rows := genRows(23, 3000)
	var want [][]any
	for _, r := range rows {
		want = append(want, r.values())
	}
	for _, eol := range []string{"\n", "\r\n"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "big.csv")
		writeCSV(t, path, testColumns, rows)
		if eol != "\n" {
			data, _ := os.ReadFile(path)
			os.WriteFile(path, []byte(strings.ReplaceAll(string(data), "\n", eol)), 0o644)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range []int64{4096, 10007, 1 << 20} {
			t.Run(fmt.Sprintf("eol=%q/block=%d", eol, block), func(t *testing.T) {
				parts := int((info.Size() + block - 1) / block)
				f := readCSV(t, path, dataframe.CSVOptions{BlockSize: block}, parts, testColumns, testTypes, want)
				if block < 1<<20 && f.NumPartitions() < 10 {
					t.Errorf("only %d partitions", f.NumPartitions())
				}
			})
		}
	}
	// Blocks smaller than a line: most of them own no line at all.
	dir := t.TempDir()
	text := "word,n\nalpha,1\nbeta,22\ngamma,333\ndelta,4444\n"
	path := writeFile(t, dir, "small.csv", text)
	readCSV(t, path, dataframe.CSVOptions{BlockSize: 3}, (len(text)+2)/3, []string{"word", "n"}, []string{"utf8", "int64"},
		[][]any{{"alpha", int64(1)}, {"beta", int64(22)}, {"gamma", int64(333)}, {"delta", int64(4444)}})
}

func TestReadCSVOptions(t *testing.T) {
	dir := t.TempDir()
	t.Run("Types", func(t *testing.T) {
		path := writeFile(t, dir, "types.csv", "code,amount,flag,n\n007,1,true,5\n010,2,false,\n,3,,7\n")
		readCSV(t, path, dataframe.CSVOptions{Types: map[string]string{"code": "string", "amount": "float64", "n": "string"}}, 1,
			[]string{"code", "amount", "flag", "n"}, []string{"utf8", "float64", "bool", "utf8"},
			[][]any{{"007", 1.0, true, "5"}, {"010", 2.0, false, nil}, {nil, 3.0, nil, "7"}})
	})
	t.Run("NullValues", func(t *testing.T) {
		// The given null values add to the defaults, as pandas' na_values...
		path := writeFile(t, dir, "nulls.csv", "s,i,x\nNA,-,1.5\n-,2,missing\n,3,2\nmissing,4,-\n")
		readCSV(t, path, dataframe.CSVOptions{NullValues: []string{"-", "missing"}}, 1,
			[]string{"s", "i", "x"}, []string{"utf8", "int64", "float64"},
			[][]any{{nil, nil, 1.5}, {nil, int64(2), nil}, {nil, int64(3), 2.0}, {nil, int64(4), nil}})
		// ...or replace them: "NA" and "" are text then.
		readCSV(t, path, dataframe.CSVOptions{NullValues: []string{"-", "missing"}, NoDefaultNulls: true}, 1,
			[]string{"s", "i", "x"}, []string{"utf8", "int64", "float64"},
			[][]any{{"NA", nil, 1.5}, {nil, int64(2), nil}, {"", int64(3), 2.0}, {nil, int64(4), nil}})
	})
	t.Run("Delimiter", func(t *testing.T) {
		path := writeFile(t, dir, "semi.csv", "name;qty;note\nbolt;10;a,b\nnut;;\"x;y\"\n")
		readCSV(t, path, dataframe.CSVOptions{Delimiter: ';'}, 1,
			[]string{"name", "qty", "note"}, []string{"utf8", "int64", "utf8"},
			[][]any{{"bolt", int64(10), "a,b"}, {"nut", nil, "x;y"}})
		path = writeFile(t, dir, "tabs.tsv", "a\tb\n1\tone two\n2\tthree\n")
		readCSV(t, path, dataframe.CSVOptions{Delimiter: '\t'}, 1,
			[]string{"a", "b"}, []string{"int64", "utf8"},
			[][]any{{int64(1), "one two"}, {int64(2), "three"}})
	})
	t.Run("NoHeader", func(t *testing.T) {
		path := writeFile(t, dir, "noheader.csv", "1,x,0.5\n2,y,1.5\n3,,2\n")
		readCSV(t, path, dataframe.CSVOptions{NoHeader: true, Names: []string{"id", "tag", "w"}}, 1,
			[]string{"id", "tag", "w"}, []string{"int64", "utf8", "float64"},
			[][]any{{int64(1), "x", 0.5}, {int64(2), "y", 1.5}, {int64(3), nil, 2.0}})
	})
	t.Run("Names", func(t *testing.T) {
		path := writeFile(t, dir, "renamed.csv", "a,b\n1,2\n3,4\n")
		readCSV(t, path, dataframe.CSVOptions{Names: []string{"x", "y"}}, 1,
			[]string{"x", "y"}, []string{"int64", "int64"},
			[][]any{{int64(1), int64(2)}, {int64(3), int64(4)}})
	})
	t.Run("NoDictionary", func(t *testing.T) {
		path := writeFile(t, dir, "dict.csv", "k,v\na,1\na,2\nb,3\na,4\nb,5\na,6\n")
		ctx := newClient(t)
		f := dataframe.ReadCSV(path, dataframe.CSVOptions{NoDictionary: true}).
			Filter(col("k").Eq("a")).GroupBy("k").Agg(dataframe.Sum("v"))
		checkTable(t, f, compute(t, ctx, f), []string{"k", "sum(v)"}, []string{"utf8", "int64"},
			[][]any{{"a", int64(13)}}, 0)
	})
}

// TestReadCSVSeesChangedFiles checks that a file changed since an earlier
// frame was computed is read afresh by a new frame, not served from before.
func TestReadCSVSeesChangedFiles(t *testing.T) {
	ctx := newClient(t)
	dir := t.TempDir()
	writeFile(t, dir, "a.csv", "v\n1\n2\n")
	writeFile(t, dir, "b.csv", "v\n3\n")
	if n, err := dataframe.ReadCSV(filepath.Join(dir, "*.csv")).Len(ctx); err != nil || n != 3 {
		t.Fatalf("Len = %d, %v; want 3", n, err)
	}
	writeFile(t, dir, "b.csv", "v\n3\n4\n5\n")
	if n, err := dataframe.ReadCSV(filepath.Join(dir, "*.csv")).Len(ctx); err != nil || n != 5 {
		t.Errorf("Len after b.csv grew = %d, %v; want 5", n, err)
	}
}

// An empty file among others reads as no rows; `dusk:"-"` leaves a field out.
func TestEmptyFileAndSkippedField(t *testing.T) {
	ctx := newClient(t)
	dir := t.TempDir()
	writeFile(t, dir, "a.csv", "x,y\n1,2\n")
	writeFile(t, dir, "b.csv", "")
	n, err := dataframe.ReadCSV(dir).Len(ctx)
	if err != nil || n != 1 {
		t.Fatalf("Len = %d, %v; want 1", n, err)
	}
	type rec struct {
		Kept    int64
		Skipped string `dusk:"-"`
	}
	f := dataframe.FromRecords([]rec{{1, "a"}}, 1)
	if got := f.Columns(); len(got) != 1 || got[0] != "Kept" {
		t.Fatalf("columns %v, want [Kept]", got)
	}
}
