package avro_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/hamba/avro/v2/ocf"

	"github.com/duskdata/dusk/internal/memcheck"
	davro "github.com/duskdata/dusk/io/avro"
	"github.com/duskdata/dusk/io/internal/iotest"
)

// readBytes reads a file's bytes as Read would from disk.
func readBytes(data []byte, path string) (int64, error) {
	rec, err := davro.Read(bytes.NewReader(data), path, nil)
	if err != nil {
		return 0, err
	}
	defer rec.Release()
	return rec.NumRows(), nil
}

// A file cut anywhere reads as an error naming it, or, cut between blocks,
// as the blocks before the cut: Avro files have no footer to miss.
func TestReadTruncated(t *testing.T) {
	rec := fiveTypes(30)
	defer rec.Release()
	for _, codec := range []string{"none", "zstd", "deflate", "snappy"} {
		t.Run(codec, func(t *testing.T) {
			data, err := os.ReadFile(writeFile(t, []arrow.Record{rec}, davro.WriteOptions{Compression: codec, BlockSize: 300}))
			if err != nil {
				t.Fatal(err)
			}
			whole := 0
			for n := 0; n < len(data); n++ {
				rows, err := readBytes(data[:n], "cut.avro")
				switch {
				case err != nil:
					if !strings.HasPrefix(err.Error(), "read cut.avro") {
						t.Fatalf("cut at %d: err = %v, which does not name the file", n, err)
					}
					if strings.Contains(err.Error(), "panic") {
						t.Fatalf("cut at %d: %v", n, err)
					}
				case rows >= rec.NumRows():
					t.Fatalf("cut at %d of %d: read all %d rows", n, len(data), rows)
				default:
					whole++
				}
			}
			if whole < 2 {
				t.Errorf("only %d cuts fell between blocks; the test wants several blocks", whole)
			}
			if rows, err := readBytes(data, "whole.avro"); err != nil || rows != rec.NumRows() {
				t.Errorf("whole file: %d rows, err %v", rows, err)
			}
		})
	}
}

// Flipped bytes and garbage never panic; an error names the file.
func TestReadGarbage(t *testing.T) {
	rec := fiveTypes(30)
	defer rec.Release()
	r := rand.New(rand.NewPCG(3, 4))
	for _, codec := range []string{"none", "zstd", "deflate", "snappy"} {
		data, err := os.ReadFile(writeFile(t, []arrow.Record{rec}, davro.WriteOptions{Compression: codec, BlockSize: 400}))
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 1000; trial++ {
			bad := bytes.Clone(data)
			for k := 1 + r.IntN(3); k > 0; k-- {
				bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
			}
			if _, err := readBytes(bad, "bad.avro"); err != nil {
				if !strings.HasPrefix(err.Error(), "read bad.avro") || strings.Contains(err.Error(), "panic") {
					t.Fatalf("%s trial %d: err = %v", codec, trial, err)
				}
			}
		}
	}
	for trial := 0; trial < 500; trial++ {
		garbage := make([]byte, r.IntN(2000))
		for i := range garbage {
			garbage[i] = byte(r.Uint32())
		}
		if trial%2 == 0 && len(garbage) > 4 {
			copy(garbage, "Obj\x01") // past the magic, into the header
		}
		if _, err := readBytes(garbage, "garbage.avro"); err == nil || !strings.HasPrefix(err.Error(), "read garbage.avro") {
			t.Fatalf("trial %d: err = %v", trial, err)
		}
	}
}

// writeRaw writes a file of schema whose records are the given raw bytes,
// one block each, to craft corrupt records.
func writeRaw(t *testing.T, schema string, blocks [][][]byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "raw.avro")
	var b bytes.Buffer
	enc, err := ocf.NewEncoder(schema, &b, ocf.WithBlockLength(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range blocks {
		for _, rec := range block {
			if _, err := enc.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadErrorsNameTheRecord(t *testing.T) {
	const schema = `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"c","type":{"type":"enum","name":"E","symbols":["X","Y"]}},{"name":"s","type":["null","string"]},{"name":"b","type":"boolean"}]}`
	ok := []byte{2, 0, 0, 1} // a=1, c=X, s=null, b=true
	tests := []struct {
		name   string
		blocks [][][]byte
		want   string
	}{
		{"enum index", [][][]byte{{ok, ok}, {ok, {2, 4, 0, 1}}}, "record 3 field c: enum index 2, but the enum has 2 symbols"},
		{"union branch", [][][]byte{{ok, {2, 0, 4, 1}}}, "record 1 field s: union branch 2, but the union has 2"},
		{"bool", [][][]byte{{{2, 0, 0, 7}}}, "record 0 field b: a boolean byte of 7"},
		{"string past the block", [][][]byte{{ok, {2, 0, 2, 100, 'x'}}}, "record 1 field s: the value runs past the end of its block"},
		{"negative length", [][][]byte{{{2, 0, 2, 1, 1}}}, "record 0 field s: a negative length (-1)"},
		{"long varint", [][][]byte{{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 1}}}, "record 0 field a: a varint longer than its type allows"},
		{"left over", [][][]byte{{ok}, {append(bytes.Clone(ok), 9)}}, "block 1 (from record 1): 1 bytes left over after its 1 records"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeRaw(t, schema, tt.blocks)
			_, err := readFile(t, path, nil)
			if want := "read " + path + " " + tt.want; err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("err = %v\n      want %q", err, want)
			}
		})
	}
}

func TestReadHeaderErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "read x.avro: not an Avro object container file"},
		{"parquet", []byte("PAR1...."), "read x.avro: not an Avro object container file"},
		{"no schema", append([]byte("Obj\x01\x00"), make([]byte, 16)...), "read x.avro: header: no avro.schema"},
		{"cut header", []byte("Obj\x01\x02\x16avro.schema"), "read x.avro: header: unexpected EOF"},
		{"huge metadata", []byte("Obj\x01\x02\x16avro.schema\xfe\xff\xff\xff\x0f"), "read x.avro: header: metadata of 2147483647 bytes"},
		{"bad schema", append([]byte("Obj\x01\x02\x16avro.schema\x06{}}\x00"), make([]byte, 16)...), "read x.avro: header: schema:"},
		{"codec", header(`{"type":"record","name":"R","fields":[]}`, "xz"), `read x.avro: codec "xz" is not supported`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := davro.Read(bytes.NewReader(tt.data), "x.avro", nil)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("Read: err = %v, want %q", err, tt.want)
			}
		})
	}
}

// header makes a container file's header with schema and codec.
func header(schema, codec string) []byte {
	b := []byte("Obj\x01\x04")
	for _, s := range []string{"avro.schema", schema, "avro.codec", codec} {
		b = binary.AppendVarint(b, int64(len(s)))
		b = append(b, s...)
	}
	return append(append(b, 0), make([]byte, 16)...)
}

// FuzzRead checks that no input makes Read panic, and that every error
// names the file.
func FuzzRead(f *testing.F) {
	rec := fiveTypes(12)
	defer rec.Release()
	for _, codec := range []string{"none", "deflate", "snappy", "zstd"} {
		var b bytes.Buffer
		if err := davro.Write(&b, []arrow.Record{rec}, davro.WriteOptions{Compression: codec, BlockSize: 100}); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add(header(structSchema, "null"))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer iotest.NoHang(data)()
		memcheck.Check(t, data, func() int64 {
			rec, err := davro.Read(bytes.NewReader(data), "fuzz.avro", nil)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "read fuzz.avro") || strings.Contains(err.Error(), "panic") {
					t.Fatalf("err = %v", err)
				}
				return 0
			}
			defer rec.Release()
			return memcheck.RecordBytes(rec)
		})
	})
}

// TestSnappyClaim: a snappy block whose data claims 4 GiB decoded fails
// naming the file, allocating little (the snappy decoder allocated the
// claim before decoding).
func TestSnappyClaim(t *testing.T) {
	data := append(binary.AppendUvarint(nil, 0xfffffff0), 0, 'x', 0, 0, 0, 0) // a literal, then the CRC
	file := header(`{"type":"record","name":"R","fields":[{"name":"a","type":"long"}]}`, "snappy")
	file = binary.AppendVarint(binary.AppendVarint(file, 1), int64(len(data)))
	file = append(append(file, data...), make([]byte, 16)...)
	memcheck.Check(t, file, func() int64 {
		_, err := readBytes(file, "claim.avro")
		if err == nil || !strings.Contains(err.Error(), "read claim.avro block 0") || !strings.Contains(err.Error(), "claims 4294967280 decoded") {
			t.Errorf("err = %v", err)
		}
		return 0
	})
}
