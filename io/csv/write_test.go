package csv

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/duskdata/dusk/io/storage"
)

// TestWriteReadsBack writes parsed rows (quotes, delimiters, line breaks,
// nulls, dictionary strings) and parses them again, in two dialects.
func TestWriteReadsBack(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	text := randomCSV(r, 3000, false)
	for _, delim := range []byte{',', '|'} {
		rec, err := Parse([]byte(text)[len("i,f,s,b\n"):], testSchema, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, rec, WriteOptions{Delimiter: delim}); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		header, next, err := splitLine(data, 0, delim, 0)
		if err != nil || !slices.Equal(header, testSchema.Names()) {
			t.Fatalf("header %q: %v", header, err)
		}
		again, err := Parse(data[next:], testSchema, Options{Delimiter: delim})
		if err != nil {
			t.Fatalf("delimiter %q: %v", delim, err)
		}
		if !array.RecordEqual(rec, again) {
			t.Fatalf("delimiter %q: the rows read back differ", delim)
		}
		rec.Release()
		again.Release()
	}
}

// TestCompressedInput reads gzip and zstd files, named by their extension,
// as one block each.
func TestCompressedInput(t *testing.T) {
	text := randomCSV(rand.New(rand.NewSource(3)), 5000, false)
	dir := t.TempDir()
	var gz, zs bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text))
	zw.Close()
	ze, _ := zstd.NewWriter(&zs)
	ze.Write([]byte(text))
	ze.Close()
	for name, data := range map[string][]byte{"x.csv.gz": gz.Bytes(), "x.csv.zst": zs.Bytes()} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		schema, err := Infer(path, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		files, _ := storage.List(path)
		blocks := Blocks(files, 1024)
		if len(blocks) != 1 {
			t.Fatalf("%s: %d blocks, want 1", name, len(blocks))
		}
		rec, err := ReadBlock(blocks[0], schema, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkAgainstReference(t, text, rec)
		rec.Release()
	}
	bad := filepath.Join(dir, "bad.csv.gz")
	os.WriteFile(bad, gz.Bytes()[:len(gz.Bytes())/2], 0o644)
	files, _ := storage.List(bad)
	if _, err := ReadBlock(Blocks(files, 1<<20)[0], testSchema, Options{}); err == nil || !bytes.Contains([]byte(err.Error()), []byte("bad.csv.gz")) {
		t.Fatalf("truncated gzip: %v", err)
	}
}
