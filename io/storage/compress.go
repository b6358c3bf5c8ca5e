package storage

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compressed reports whether p names a gzip (.gz) or zstd (.zst, .zstd)
// compressed file, which readers decompress whole and cannot split.
func Compressed(p string) bool { return compression(p) != "" }

func compression(p string) string {
	p, _, _ = strings.Cut(p, "?")
	switch {
	case strings.HasSuffix(p, ".gz"):
		return "gzip"
	case strings.HasSuffix(p, ".zst"), strings.HasSuffix(p, ".zstd"):
		return "zstd"
	}
	return ""
}

// OpenStream opens a file to read from the start, decompressing it if its
// name says it is compressed.
func OpenStream(p string) (io.ReadCloser, error) {
	f, err := Open(p)
	if err != nil {
		return nil, err
	}
	r := io.NewSectionReader(f, 0, f.Size())
	switch compression(p) {
	case "gzip":
		z, err := gzip.NewReader(r)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("read %s: gzip: %w", p, err)
		}
		return readCloser{z, func() error { z.Close(); return f.Close() }}, nil
	case "zstd":
		z, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("read %s: zstd: %w", p, err)
		}
		return readCloser{z, func() error { z.Close(); return f.Close() }}, nil
	}
	return readCloser{r, f.Close}, nil
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

// ReadAll reads a whole file, decompressed, appending to buf.
func ReadAll(p string, buf []byte) ([]byte, error) {
	r, err := OpenStream(p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	w := bytes.NewBuffer(buf[:0])
	if _, err := w.ReadFrom(r); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return w.Bytes(), nil
}

// Compress wraps w to compress what is written as p's extension says (.gz,
// .zst); Close finishes the stream but does not close w.
func Compress(w io.Writer, p string) io.WriteCloser {
	switch compression(p) {
	case "gzip":
		return gzip.NewWriter(w)
	case "zstd":
		z, _ := zstd.NewWriter(w, zstd.WithEncoderConcurrency(1)) // fails only on bad options
		return z
	}
	return nopCloser{w}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
