package storage

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

	"github.com/klauspost/compress/zstd"
)

var fuzzFiles atomic.Int64

// FuzzDecompress reads any bytes through the decompressing streams of
// gzip and zstd files (OpenStream) to their end, or to 64 MiB of output:
// an error is fine, a panic is not.
func FuzzDecompress(f *testing.F) {
	text := bytes.Repeat([]byte("id1,id2,3.25\n"), 500)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(text)
	w.Close()
	f.Add(gz.Bytes(), false)
	enc, _ := zstd.NewWriter(nil)
	f.Add(enc.EncodeAll(text, nil), true)
	f.Fuzz(func(t *testing.T, data []byte, isZstd bool) {
		ext := ".csv.gz"
		if isZstd {
			ext = ".csv.zst"
		}
		p := fmt.Sprintf("mem://fuzz-decompress/%d%s", fuzzFiles.Add(1), ext)
		if err := WriteFile(p, true, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			t.Fatal(err)
		}
		defer Remove(p)
		r, err := OpenStream(p)
		if err != nil {
			return
		}
		io.Copy(io.Discard, io.LimitReader(r, 64<<20))
		r.Close()
	})
}
