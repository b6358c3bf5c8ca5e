package dataframe_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe"
)

// allColumns is how errors list the columns of a frame of testRows.
var allColumns = strings.Join(testColumns, ", ")

// TestBuildErrors checks mistakes that are caught as the frame is built:
// Err says what is wrong, and Compute, Len, Head and Persist return it
// without running anything.
func TestBuildErrors(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(30, 50)
	base := arrowFrame(t, rows, []int{20, 0, 30})
	missing := dataframe.ReadCSV(filepath.Join(t.TempDir(), "nothing-*.csv"))
	cases := []struct {
		name  string
		frame *dataframe.Frame
		parts []string
	}{
		// Unknown columns name themselves and the columns there are.
		{"Select", base.Select("I", "nope"), []string{`"nope"`, "not found", allColumns}},
		{"Filter", base.Filter(col("F").Gt(1).And(col("nope").IsNull())), []string{`"nope"`, allColumns}},
		{"WithColumn", base.WithColumn("x", col("I").Add(col("Nope"))), []string{`"Nope"`, allColumns}},
		{"GroupBy key", base.GroupBy("K", "nope").Agg(dataframe.Sum("I")), []string{`"nope"`, allColumns}},
		{"Agg column", base.GroupBy("K").Agg(dataframe.Sum("I"), dataframe.Mean("nope")), []string{`"nope"`, "mean(nope)", allColumns}},
		{"after WithColumn", base.WithColumn("new", lit(1)).Select("old"), []string{`"old"`, allColumns + ", new"}},
		{"after Select", base.Select("K", "I").Filter(col("F").Gt(0)), []string{`"F"`, "the columns are K, I"}},
		{"case matters", base.Select("id"), []string{`"id"`, allColumns}},

		// Type mismatches name both sides' types.
		{"string > int", base.Filter(col("S").Gt(2)), []string{"S (string)", "2 (int64)"}},
		{"int == string", base.Filter(col("I").Eq("3")), []string{"I (int64)", `"3" (string)`}},
		{"float < bool", base.Filter(col("F").Lt(col("B"))), []string{"F (float64)", "B (bool)"}},
		{"string + int", base.WithColumn("x", col("S").Add(1)), []string{"S (string)", "1 (int64)"}},
		{"bool * float", base.WithColumn("x", col("B").Mul(col("F"))), []string{"B (bool)", "F (float64)"}},
		{"and of an int", base.Filter(col("I").And(col("B"))), []string{"and", "I (int64)"}},
		{"not of a string", base.Filter(col("S").Not()), []string{"not", "S (string)"}},
		{"isin of another kind", base.Filter(col("S").IsIn("a", 1)), []string{"S (string)", "1 (int64)"}},
		{"isin of ints with a string", base.Filter(col("I").IsIn("1")), []string{"I (int64)", `"1"`}},
		{"predicate not bool", base.Filter(col("I").Add(1)), []string{"int64, not bool"}},
		{"string predicate", base.Filter(col("S")), []string{"string, not bool"}},
		{"unsupported literal", base.Filter(col("I").Eq([]int{1})), []string{"[1]", "[]int", "literal"}},
		{"uint64 literal", base.WithColumn("x", col("I").Add(uint64(1))), []string{"uint64", "literal"}},
		{"Sum of strings", base.GroupBy("K").Agg(dataframe.Sum("S")), []string{"sum(S)", "numeric", "string"}},

		// Other misuse.
		{"Select nothing", base.Select(), []string{"no columns"}},
		{"Select twice", base.Select("I", "I"), []string{`"I"`, "twice"}},
		{"WithColumn no name", base.WithColumn("", lit(1)), []string{"name"}},
		{"GroupBy no keys", base.GroupBy().Agg(dataframe.Size()), []string{"no key"}},
		{"GroupBy key twice", base.GroupBy("K", "K").Agg(dataframe.Size()), []string{`"K"`, "twice"}},
		{"Transform nothing", base.GroupBy("K").Transform(), []string{"no aggregations"}},
		{"Agg names clash", base.GroupBy("K").Agg(dataframe.Sum("I"), dataframe.Sum("I")), []string{`"sum(I)"`, "As"}},
		{"Agg name is a key", base.GroupBy("K").Agg(dataframe.Max("I").As("K")), []string{`"K"`}},

		// Sources.
		{"glob matches nothing", missing, []string{"no files match", "nothing-*.csv"}},
		{"error carries through", missing.Filter(col("x").Gt(1)).WithColumn("y", lit(2)).Select("y").GroupBy("y").Agg(dataframe.Size()),
			[]string{"no files match"}},
		{"FromArrow nothing", dataframe.FromArrow(), []string{"no records"}},
		{"FromRecords not a struct", dataframe.FromRecords([]int{1, 2}, 1), []string{"int", "not a struct"}},
		{"FromRecords bad field", dataframe.FromRecords([]struct{ A []int }{{nil}}, 1), []string{"A", "[]int"}},
		{"FromRecords no fields", dataframe.FromRecords([]struct{ a int }{{1}}, 1), []string{"no exported fields"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantErr(t, "Err", c.frame.Err(), c.parts...)
			if c.frame.Err() == nil {
				return
			}
			_, err := c.frame.Compute(ctx)
			wantErr(t, "Compute", err, c.parts...)
			_, err = c.frame.Len(ctx)
			wantErr(t, "Len", err, c.parts...)
			_, err = c.frame.Head(ctx, 5)
			wantErr(t, "Head", err, c.parts...)
			_, err = c.frame.Persist(ctx)
			wantErr(t, "Persist", err, c.parts...)
			if n := c.frame.NumPartitions(); n != 0 {
				t.Errorf("NumPartitions of a failed frame = %d", n)
			}
		})
	}
}

func TestFromArrowErrors(t *testing.T) {
	mem := memory.DefaultAllocator
	mk := func(fields []arrow.Field, fill func(b *array.RecordBuilder)) arrow.Record {
		b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
		defer b.Release()
		fill(b)
		return b.NewRecord()
	}
	ints := mk([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Int64Builder).Append(1)
	})
	defer ints.Release()
	floats := mk([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Float64}}, func(b *array.RecordBuilder) {
		b.Field(0).(*array.Float64Builder).Append(1)
	})
	defer floats.Release()
	other := mk([]arrow.Field{{Name: "b", Type: arrow.PrimitiveTypes.Int64}}, func(b *array.RecordBuilder) {})
	defer other.Release()
	big := mk([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "u", Type: arrow.BinaryTypes.Binary}},
		func(b *array.RecordBuilder) {})
	defer big.Release()
	wantErr(t, "int64 then float64", dataframe.FromArrow(ints, floats).Err(), "record 1", "float64", "int64")
	wantErr(t, "another column", dataframe.FromArrow(ints, other).Err(), "record 1", "b")
	wantErr(t, "binary", dataframe.FromArrow(ints, big).Err(), "record 1", "column u", "binary")
}

func TestCSVErrors(t *testing.T) {
	ctx := newClient(t)
	dir := t.TempDir()
	good := writeFile(t, dir, "good.csv", "a,b\n1,x\n2,y\n")

	t.Run("options", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			opts  dataframe.CSVOptions
			parts []string
		}{
			{"bad type", dataframe.CSVOptions{Types: map[string]string{"a": "integer"}}, []string{`"integer"`, "int64"}},
			{"type for no column", dataframe.CSVOptions{Types: map[string]string{"c": "int64"}}, []string{`"c"`, "not a column"}},
			{"no header, no names", dataframe.CSVOptions{NoHeader: true}, []string{"Names"}},
			{"too few names", dataframe.CSVOptions{Names: []string{"x"}}, []string{"1 names", "2 columns"}},
			{"quote delimiter", dataframe.CSVOptions{Delimiter: '"'}, []string{"delimiter"}},
		} {
			wantErr(t, c.name, dataframe.ReadCSV(good, c.opts).Err(), append(c.parts, "ReadCSV")...)
		}
	})

	// Malformed rows are found when the file is read, by Compute; the error
	// names the file and the line.
	t.Run("malformed rows", func(t *testing.T) {
		var big strings.Builder
		big.WriteString("n,s\n")
		for i := 2; i <= 5000; i++ {
			if i == 4321 {
				big.WriteString("12x,oops\n")
				continue
			}
			fmt.Fprintf(&big, "%d,row %d\n", i, i)
		}
		for _, c := range []struct {
			name, file, text string
			opts             dataframe.CSVOptions
			parts            []string
		}{
			{"not an int", "ints.csv", "n,s\n1,a\n2,b\nthree,c\n4,d\n", dataframe.CSVOptions{},
				[]string{"ints.csv", "line 4", "three", "int64"}},
			{"too many fields", "wide.csv", "n,s\n1,a\n2,b,c\n", dataframe.CSVOptions{},
				[]string{"wide.csv", "line 3", "expected 2 fields"}},
			{"too few fields", "narrow.csv", "n,s\n1,a\n2\n3,c\n", dataframe.CSVOptions{},
				[]string{"narrow.csv", "line 3", "expected 2 fields"}},
			{"unclosed quote", "quote.csv", "n,s\n1,a\n2,\"b\n", dataframe.CSVOptions{},
				[]string{"quote.csv", "line 3", "quoted"}},
			{"deep in a later block", "big.csv", big.String(), dataframe.CSVOptions{BlockSize: 4096},
				[]string{"big.csv", "line 4321", "12x"}},
			{"not a float", "floats.csv", "x\n1.5\n2.5\n", dataframe.CSVOptions{Types: map[string]string{"x": "bool"}},
				[]string{"floats.csv", "line 2", "1.5", "bool"}},
		} {
			t.Run(c.name, func(t *testing.T) {
				path := writeFile(t, t.TempDir(), c.file, c.text)
				// The sample that infers the types ends before the bad line
				// only for the big file; give the types to read past it.
				opts := c.opts
				if opts.Types == nil {
					opts.Types = map[string]string{"n": "int64", "s": "string"}
				}
				f := dataframe.ReadCSV(path, opts)
				if err := f.Err(); err != nil {
					wantErr(t, "ReadCSV", err, c.parts...)
					return
				}
				_, err := f.Compute(ctx)
				wantErr(t, "Compute", err, c.parts...)
				first := f.Columns()[0]
				_, err = f.Filter(col(first).NotNull()).GroupBy(first).Agg(dataframe.Size()).Compute(ctx)
				wantErr(t, "Compute of a group-by", err, c.parts...)
				_, err = f.Len(ctx)
				wantErr(t, "Len", err, c.parts...)
			})
		}
	})

	// A file whose header differs from the first file's.
	t.Run("header differs", func(t *testing.T) {
		d := t.TempDir()
		writeFile(t, d, "1.csv", "a,b\n1,2\n")
		writeFile(t, d, "2.csv", "a,c\n3,4\n")
		_, err := dataframe.ReadCSV(filepath.Join(d, "*.csv")).Compute(ctx)
		wantErr(t, "Compute", err, "2.csv", "header", `"c"`)
	})

	// A later file with a value that does not fit the type inferred from
	// the first.
	t.Run("later file does not fit", func(t *testing.T) {
		d := t.TempDir()
		writeFile(t, d, "1.csv", "a\n1\n2\n")
		writeFile(t, d, "2.csv", "a\n3\n4.5\n")
		_, err := dataframe.ReadCSV(filepath.Join(d, "*.csv")).Compute(ctx)
		wantErr(t, "Compute", err, "2.csv", "line 3", "4.5", "int64")
	})

	t.Run("file removed", func(t *testing.T) {
		d := t.TempDir()
		path := writeFile(t, d, "gone.csv", "a\n1\n")
		f := dataframe.ReadCSV(path)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		_, err := f.Compute(ctx)
		wantErr(t, "Compute", err, "gone.csv")
	})
}

// TestRunErrors checks mistakes that show only when tasks run.
func TestRunErrors(t *testing.T) {
	ctx := newClient(t)
	f := arrowFrame(t, genRows(31, 40), []int{10, 30})
	// Arithmetic on two literals is a constant column.
	tab, err := f.WithColumn("x", lit(1).Add(2)).Select("x").Compute(ctx)
	if err != nil {
		t.Fatalf("arithmetic on two literals: %v", err)
	}
	for i, v := range tab.Column("x").(*array.Int64).Int64Values() {
		if v != 3 {
			t.Fatalf("row %d: 1 + 2 = %d", i, v)
		}
	}
	tab.Release()

	// A negative Head is refused, not a panic.
	_, err = f.Head(ctx, -1)
	wantErr(t, "Head(-1)", err, "-1")
}

// TestNoClient computes with no client in the context and none started.
func TestNoClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f := arrowFrame(t, genRows(32, 10), []int{10})
	_, err := f.Compute(ctx)
	wantErr(t, "Compute", err, "dusk.NewClient")
	_, err = f.Len(ctx)
	wantErr(t, "Len", err, "dusk.NewClient")
	_, err = f.Head(ctx, 1)
	wantErr(t, "Head", err, "dusk.NewClient")
	_, err = f.Persist(ctx)
	wantErr(t, "Persist", err, "dusk.NewClient")
}
