package storage

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// Block is a byte range of a file that one partition parses: the lines that
// start inside [Start, End). The file's header, if any, is in its first block.
type Block struct {
	Path  string `json:"path"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Size  int64  `json:"size"`  // the whole file's
	Stamp string `json:"stamp"` // the file's Fingerprint
}

// Blocks splits each file into as few blocks as keep them within size
// bytes, all of about one size, so that a file's partitions take about as
// long as each other (a short last block would leave a thread idle while
// the others finish); a compressed file is one block.
func Blocks(files []File, size int64) []Block {
	var out []Block
	for _, f := range files {
		n := max(1, (f.Size+size-1)/size)
		if Compressed(f.Path) {
			n = 1
		}
		for i := int64(0); i < n; i++ {
			out = append(out, Block{Path: f.Path, Start: f.Size * i / n, End: f.Size * (i + 1) / n, Size: f.Size, Stamp: f.Fingerprint()})
		}
	}
	return out
}

// ReadLines returns the bytes of the lines that start in b, and how many
// lines of the file come before them (0 or 1 in a block's own bytes: the
// partial first line it skips). A compressed file is decompressed whole.
// The bytes live in *buf, which it grows as needed: see GetBuffer.
func ReadLines(b Block, buf *[]byte) ([]byte, int, error) {
	if Compressed(b.Path) {
		data, err := ReadAll(b.Path, *buf)
		if err != nil {
			return nil, 0, err
		}
		*buf = data
		return data, 0, nil
	}
	f, err := Open(b.Path)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", b.Path, err)
	}
	defer f.Close()
	data, skipped, err := readLines(f, b, buf)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", b.Path, err)
	}
	return data, skipped, nil
}

// buffers recycles read buffers: parsed columns copy what they keep, so a
// block's bytes are garbage once parsed, and reusing them spares the cost of
// fresh memory (a page fault per 4 KiB) on every block.
var buffers sync.Pool

// GetBuffer returns a buffer for ReadLines; give it back with PutBuffer once
// nothing refers to its bytes.
func GetBuffer() *[]byte {
	if b, ok := buffers.Get().(*[]byte); ok {
		return b
	}
	return new([]byte)
}

// PutBuffer recycles a buffer from GetBuffer.
func PutBuffer(b *[]byte) { buffers.Put(b) }

// readLines returns the bytes of the lines that start in b, and how many
// lines before them it skipped (0 or 1: the partial first line). The bytes
// live in *pool, which it grows as needed.
func readLines(f io.ReaderAt, b Block, pool *[]byte) ([]byte, int, error) {
	begin := max(b.Start-1, 0) // the byte before tells whether Start begins a line
	want := b.End - begin
	if b.End < b.Size {
		want += 64 << 10 // room for the line that crosses End
	}
	if int64(cap(*pool)) < want {
		// With room to spare, so that the buffer also takes the blocks of
		// another file of about the same block size: a fresh one costs a
		// page fault per 4 KiB.
		*pool = make([]byte, want, want+want/16)
	}
	buf := (*pool)[:want]
	n, err := f.ReadAt(buf, begin)
	if err != nil && err != io.EOF {
		return nil, 0, err
	}
	buf = buf[:n]
	start, skipped := 0, 0
	if b.Start > 0 {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 || int64(i+1) >= b.End-begin {
			return nil, 0, nil // no line starts here
		}
		start, skipped = i+1, 1
	}
	if b.End >= b.Size {
		return buf[start:], skipped, nil
	}
	// The last line is the one that starts before End: read to its end.
	from := int(b.End-begin) - 1
	for {
		if i := bytes.IndexByte(buf[from:], '\n'); i >= 0 {
			return buf[start : from+i+1], skipped, nil
		}
		if begin+int64(len(buf)) >= b.Size {
			return buf[start:], skipped, nil
		}
		from = len(buf)
		grown := make([]byte, len(buf), 2*len(buf)+1<<20)
		copy(grown, buf)
		m, err := f.ReadAt(grown[len(buf):cap(grown)], begin+int64(len(buf)))
		if err != nil && err != io.EOF {
			return nil, 0, err
		}
		buf = grown[:len(buf)+m]
		*pool = grown
	}
}

// LinesBefore counts the line breaks before offset in the file at path, to
// number lines in the file when a block's parse fails.
func LinesBefore(path string, offset int64) int {
	if offset <= 0 {
		return 0
	}
	f, err := Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	count := 0
	buf := make([]byte, 1<<20)
	for pos := int64(0); pos < offset-1; {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), offset-1-pos)], pos)
		count += bytes.Count(buf[:n], []byte{'\n'})
		pos += int64(n)
		if err != nil || n == 0 {
			break
		}
	}
	return count
}
