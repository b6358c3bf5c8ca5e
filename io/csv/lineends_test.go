package csv

import (
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/io/storage"
)

// \n, \r\n and a lone \r each end a line, in inference, block splitting,
// the chunked fast path and the row parser alike, also mixed in one file,
// as pandas reads them; in quotes they are the field's.
func TestLineEnds(t *testing.T) {
	ends := map[string][]string{
		"lf": {"\n"}, "crlf": {"\r\n"}, "cr": {"\r"}, "mixed": {"\n", "\r\n", "\r"},
	}
	for key, seps := range ends {
		for _, breaks := range []bool{false, true} {
			name := fmt.Sprintf("%s-breaks=%v", key, breaks)
			r := rand.New(rand.NewSource(int64(len(name))))
			var b strings.Builder
			b.WriteString("id,word,x" + seps[r.Intn(len(seps))])
			type row struct {
				id   int64
				word string
			}
			var want []row
			for k := 0; k < 4000; k++ {
				w := fmt.Sprintf("w%d", r.Intn(30))
				field := w
				switch {
				case k%97 == 0 && breaks:
					// A quoted field keeps its line breaks; it must not straddle
					// blocks (see the package's doc), so this file is one.
					w = "two\r\nlines\rand\nthree"
					field = `"` + w + `"`
				case k%89 == 0:
					w = `say "hi", twice`
					field = `"say ""hi"", twice"`
				}
				fmt.Fprintf(&b, "%d,%s,%d.5%s", k, field, k, seps[r.Intn(len(seps))])
				if k%501 == 0 {
					b.WriteString(seps[r.Intn(len(seps))]) // a blank line
				}
				want = append(want, row{int64(k), w})
			}
			text := strings.TrimRight(b.String(), "\r\n") // and a last line without a break
			path := "mem://line-ends/" + name + ".csv"
			if err := storage.WriteFile(path, true, func(w io.Writer) error {
				_, err := w.Write([]byte(text))
				return err
			}); err != nil {
				t.Fatal(err)
			}
			schema, err := Infer(path, Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got := fmt.Sprint(schema.Names()); got != "[id word x]" {
				t.Fatalf("%s: columns %s", name, got)
			}
			files, err := storage.List(path)
			if err != nil {
				t.Fatal(err)
			}
			sizes := []int64{50, 4096, 1 << 30}
			if breaks {
				sizes = sizes[2:]
			}
			for _, size := range sizes {
				var got []row
				for _, blk := range Blocks(files, size) {
					rec, err := ReadBlock(blk, schema, Options{})
					if err != nil {
						t.Fatalf("%s, blocks of %d: %v", name, size, err)
					}
					ids := rec.Column(0).(*array.Int64)
					words := kernel.StringsOf(rec.Column(1))
					for i := 0; i < int(rec.NumRows()); i++ {
						got = append(got, row{ids.Value(i), words.Value(i)})
					}
					rec.Release()
				}
				if len(got) != len(want) {
					t.Fatalf("%s, blocks of %d: %d rows, want %d", name, size, len(got), len(want))
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s, blocks of %d: row %d is %+v, want %+v", name, size, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// The cases that broke: a lone \r between rows, and a file of two lines
// split by one.
func TestCarriageReturnCases(t *testing.T) {
	for _, c := range []struct {
		text string
		want []int64
	}{
		{"x\n1\r22\r333\n", []int64{1, 22, 333}},
		{"x\r10", []int64{10}},
		{"x\r1\r\n2\n3\r", []int64{1, 2, 3}},
	} {
		path := "mem://cr-cases/" + fmt.Sprint(len(c.text)) + ".csv"
		if err := storage.WriteFile(path, true, func(w io.Writer) error {
			_, err := w.Write([]byte(c.text))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		schema, err := Infer(path, Options{})
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		files, _ := storage.List(path)
		rec, err := ReadBlock(Blocks(files, 1<<20)[0], schema, Options{})
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		got := rec.Column(0).(*array.Int64).Int64Values()
		if fmt.Sprint(got) != fmt.Sprint(c.want) || schema[0].Name != "x" {
			t.Errorf("%q: column %s = %v; want x = %v", c.text, schema[0].Name, got, c.want)
		}
		rec.Release()
	}
}

// A fixed terminator alone ends lines: with "\n", a lone \r is the field's;
// with '~', \n and \r both are; blocks split at it.
func TestTerminator(t *testing.T) {
	for _, c := range []struct {
		term  byte
		text  string
		words []string
	}{
		{'\n', "id,w\n1,a\rb\n2,c\r\n3,d", []string{"a\rb", "c\r", "d"}},
		{'~', "id,w~1,a\nb~2,c\r~~3,d~", []string{"a\nb", "c\r", "d"}},
	} {
		path := fmt.Sprintf("mem://terminator/%d.csv", c.term)
		if err := storage.WriteFile(path, true, func(w io.Writer) error { _, err := w.Write([]byte(c.text)); return err }); err != nil {
			t.Fatal(err)
		}
		opts := Options{Terminator: c.term, Types: map[string]Type{"w": String}, NoDictionary: true}
		schema, err := Infer(path, opts)
		if err != nil {
			t.Fatalf("terminator %q: %v", c.term, err)
		}
		files, _ := storage.List(path)
		for _, size := range []int64{3, 1 << 20} {
			var words []string
			for _, b := range Blocks(files, size) {
				rec, err := ReadBlock(b, schema, opts)
				if err != nil {
					t.Fatalf("terminator %q, blocks of %d: %v", c.term, size, err)
				}
				s := kernel.StringsOf(rec.Column(1))
				for i := 0; i < int(rec.NumRows()); i++ {
					words = append(words, s.Value(i))
				}
				rec.Release()
			}
			if fmt.Sprintf("%q", words) != fmt.Sprintf("%q", c.words) {
				t.Errorf("terminator %q, blocks of %d: %q; want %q", c.term, size, words, c.words)
			}
		}
	}
	if _, err := (Options{Terminator: ','}).WithDefaults(); err == nil {
		t.Error("the delimiter as terminator: no error")
	}
}
