package csv

import (
	"bytes"
	stdcsv "encoding/csv"
	"fmt"
	"io"
	"math/rand"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/memcheck"
	"github.com/duskdata/dusk/io/internal/iotest"
	"github.com/duskdata/dusk/io/storage"
)

// fuzzOptions are the option sets each input is read with: by its choice
// byte.
var fuzzOptions = []Options{
	{},
	{NoDictionary: true},
	{Delimiter: ';'},
	{Delimiter: '\t', NoDefaultNulls: true},
	{NoHeader: true, Names: []string{"a", "b", "c"}},
	{Terminator: '\n'},
	{Terminator: ';', Delimiter: '|'},
}

var fuzzFiles atomic.Int64

// FuzzCSV reads any bytes with Infer and ReadBlock, whole and in small
// blocks, with several option sets (delimiters, no header, fixed
// terminators): an error is fine, a panic or a hang is not, every record's
// columns are as long as it, and where encoding/csv reads the bytes (no
// '\r', whose lone form it keeps as data), every column read as text holds
// its fields.
func FuzzCSV(f *testing.F) {
	f.Add([]byte("i,f,s,b\n1,2.5,x,true\n-3,,\"q,\"\"uo\"\"te\",False\n"), uint8(0))
	f.Add([]byte(randomCSV(rand.New(rand.NewSource(1)), 40, true)), uint8(1))
	f.Add([]byte(randomCSV(rand.New(rand.NewSource(2)), 40, false)), uint8(0))
	f.Add([]byte("x\n1\r22\r333\n"), uint8(0))
	f.Add([]byte("0\r00"), uint8(0))
	f.Add([]byte("a;b\n1;2\n\n3;\"4\n5\"\n"), uint8(2))
	f.Add([]byte("1\t2\t3\n4\t5\t6"), uint8(4))
	f.Add([]byte("d,t\n2024-01-02,2024-01-02T03:04:05Z\n,2024-01-02 03:04:05+01:00\n"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, choice uint8) {
		defer iotest.NoHang(data)()
		opts := fuzzOptions[int(choice)%len(fuzzOptions)]
		path := fmt.Sprintf("mem://fuzz-csv/%d.csv", fuzzFiles.Add(1))
		if err := storage.WriteFile(path, true, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			t.Fatal(err)
		}
		defer storage.Remove(path)
		schema, err := Infer(path, opts)
		if err != nil {
			return
		}
		files, err := storage.List(path)
		if err != nil {
			t.Fatal(err)
		}
		memcheck.Check(t, data, func() (result int64) {
			for _, size := range []int64{1 << 30, 5} {
				for _, b := range Blocks(files, size) {
					if rec, err := ReadBlock(b, schema, opts); err == nil {
						checkLengths(t, rec)
						result += memcheck.RecordBytes(rec)
						rec.Release()
					}
				}
			}
			return result
		})
		if bytes.IndexByte(data, '\r') < 0 && (opts.Terminator == 0 || opts.Terminator == '\n') {
			compareText(t, path, data, schema, opts)
		}
	})
}

// checkLengths fails if a column of rec is not as long as rec.
func checkLengths(t *testing.T, rec arrow.Record) {
	t.Helper()
	for i, c := range rec.Columns() {
		if int64(c.Len()) != rec.NumRows() {
			t.Fatalf("column %d has %d values in a record of %d rows", i, c.Len(), rec.NumRows())
		}
	}
}

// compareText reads every column as text, with no null values, and
// compares the fields with encoding/csv's where it reads the data.
func compareText(t *testing.T, path string, data []byte, schema Schema, opts Options) {
	t.Helper()
	rd := stdcsv.NewReader(bytes.NewReader(data))
	rd.Comma = rune(cmp(opts.Delimiter, ','))
	want, err := rd.ReadAll()
	if err != nil || len(want) == 0 {
		return
	}
	if !opts.NoHeader {
		want = want[1:]
	}
	opts.NoDefaultNulls, opts.NullValues = true, nil
	text := make(Schema, len(schema))
	for i, c := range schema {
		text[i] = Column{Name: c.Name, Type: String}
	}
	files, _ := storage.List(path)
	rec, err := ReadBlock(Blocks(files, 1<<30)[0], text, opts)
	if err != nil {
		t.Fatalf("encoding/csv reads %q; this reader fails: %v", data, err)
	}
	defer rec.Release()
	if int(rec.NumRows()) != len(want) {
		t.Fatalf("%q: %d rows; encoding/csv reads %d", data, rec.NumRows(), len(want))
	}
	for c := range rec.Columns() {
		got := kernel.StringsOf(rec.Column(c))
		for r, row := range want {
			if got.Value(r) != row[c] {
				t.Fatalf("%q: row %d column %d is %q; encoding/csv reads %q", data, r, c, got.Value(r), row[c])
			}
		}
	}
}

func cmp(v, def byte) byte {
	if v == 0 {
		return def
	}
	return v
}
