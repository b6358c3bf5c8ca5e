package storage

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"unsafe"
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

// LineEnds says which bytes end a line.
type LineEnds uint16

const (
	// Newline: '\n' alone (JSON lines; a '\r' before it is the line's).
	Newline LineEnds = iota
	// AnyNewline: '\n', "\r\n" or a lone '\r', as pandas reads CSV.
	AnyNewline
)

// Terminator: the byte b alone ends a line.
func Terminator(b byte) LineEnds { return 0x100 | LineEnds(b) }

// single returns the one byte that ends a line, if one does.
func (e LineEnds) single() (byte, bool) {
	switch {
	case e == Newline:
		return '\n', true
	case e&0x100 != 0:
		return byte(e), true
	}
	return 0, false
}

// lineEnd returns the index just past the line end at or after i in buf,
// or -1 where there is none; more reports a '\r' at buf's end, whose line
// end may go on with a '\n' past it.
func (e LineEnds) lineEnd(buf []byte, i int) (end int, more bool) {
	if b, ok := e.single(); ok {
		if j := bytes.IndexByte(buf[i:], b); j >= 0 {
			return i + j + 1, false
		}
		return -1, false
	}
	j := bytes.IndexAny(buf[i:], "\r\n")
	if j < 0 {
		return -1, false
	}
	j += i
	if buf[j] == '\r' {
		if j+1 == len(buf) {
			return j + 1, true
		}
		if buf[j+1] == '\n' {
			j++
		}
	}
	return j + 1, false
}

// count returns how many line ends buf holds.
func (e LineEnds) count(buf []byte) int {
	if b, ok := e.single(); ok {
		return bytes.Count(buf, []byte{b})
	}
	n := bytes.Count(buf, []byte{'\n'})
	if e == AnyNewline {
		if cr := bytes.Count(buf, []byte{'\r'}); cr > 0 {
			n += cr - bytes.Count(buf, []byte("\r\n"))
		}
	}
	return n
}

// ReadLines calls use with the bytes of the lines that start in b, and how
// many lines of the file come before them (0 or 1 in a block's own bytes:
// the partial first line it skips). The bytes are valid only during the
// call, so use must copy what it keeps. A local file is mapped into memory
// rather than read, which spares a copy of every byte and a buffer's page
// faults; a compressed file is decompressed whole.
func ReadLines(b Block, ends LineEnds, use func(data []byte, skipped int) error) error {
	if Compressed(b.Path) {
		buf := buffers.Get().(*[]byte)
		defer buffers.Put(buf)
		data, err := ReadAll(b.Path, *buf)
		if err != nil {
			return err
		}
		*buf = data
		return use(data, 0)
	}
	f, err := Open(b.Path)
	if err != nil {
		return fmt.Errorf("read %s: %w", b.Path, err)
	}
	defer f.Close()
	if lf, ok := f.(localFile); ok {
		if mapped, err := mappedLines(lf, b, ends, use); mapped {
			return err
		}
	}
	buf := buffers.Get().(*[]byte)
	defer buffers.Put(buf)
	data, skipped, err := readLines(f, b, ends, buf)
	if err != nil {
		return fmt.Errorf("read %s: %w", b.Path, err)
	}
	return use(data, skipped)
}

// buffers recycles read buffers: a block's bytes are garbage once parsed,
// and reusing them spares the cost of fresh memory (a page fault per 4 KiB)
// on every block.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

// mappedLines calls use with the lines of b in a read-only mapping of the
// file, from the page that holds b's byte before its start; only the pages
// read are faulted in. It reports false, having done nothing, where the file
// cannot be mapped. Should the file shrink under the mapping, reading the
// lost bytes is an error rather than a crash.
func mappedLines(f localFile, b Block, ends LineEnds, use func([]byte, int) error) (mapped bool, err error) {
	b = b.upTo(f.size)
	begin := max(b.Start-1, 0)
	offset := begin &^ int64(os.Getpagesize()-1)
	if begin >= b.Size {
		return false, nil
	}
	m, err := mapFile(f.File, offset, int(b.Size-offset))
	if err != nil {
		return false, nil
	}
	defer unmapFile(m)
	mapped = true // before use runs: a fault in it is this read's error
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer faultAsError(b.Path, m, &err)
	lines, skipped, _ := lineBounds(m[begin-offset:], b, ends)
	return mapped, use(lines, skipped)
}

// faultAsError, deferred, turns a fault reading the mapping m into *err;
// any other panic goes on.
func faultAsError(path string, m []byte, err *error) {
	r := recover()
	if r == nil {
		return
	}
	if f, ok := r.(interface{ Addr() uintptr }); ok {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
		if a := f.Addr(); a >= start && a < start+uintptr(len(m)) {
			*err = fmt.Errorf("read %s: the file changed while it was read: %v", path, r)
			return
		}
	}
	panic(r)
}

// upTo returns b for a file of size bytes: b's own size where the file has
// grown since b was made, and where it has shrunk, a block that ends with
// it.
func (b Block) upTo(size int64) Block {
	if size < b.Size {
		b.Size, b.End = size, min(b.End, size)
	}
	return b
}

// lineBounds returns the lines that start in b within buf, the file's
// bytes from the byte before b's start (which tells whether the start
// begins a line), and how many lines before them it skipped (0 or 1: the
// partial first line). more reports that the last line runs past buf,
// which does not reach the file's end.
func lineBounds(buf []byte, b Block, ends LineEnds) (lines []byte, skipped int, more bool) {
	begin := max(b.Start-1, 0)
	atEnd := begin+int64(len(buf)) >= b.Size
	start := 0
	if b.Start > 0 {
		i, crAtEnd := ends.lineEnd(buf, 0)
		if crAtEnd && !atEnd {
			return nil, 0, true // is the '\r' a "\r\n"?
		}
		if i < 0 || int64(i) >= b.End-begin {
			return nil, 0, false // no line starts here
		}
		start, skipped = i, 1
	}
	if b.End >= b.Size {
		return buf[start:], skipped, false
	}
	// The last line is the one that starts before End: to its end.
	from := int(b.End-begin) - 1
	if i, crAtEnd := ends.lineEnd(buf, from); i >= 0 && (!crAtEnd || atEnd) {
		return buf[start:i], skipped, false
	}
	return buf[start:], skipped, !atEnd
}

// readLines reads the lines that start in b into *pool, which it grows as
// needed, and returns them and how many lines before them it skipped.
func readLines(f io.ReaderAt, b Block, ends LineEnds, pool *[]byte) ([]byte, int, error) {
	begin := max(b.Start-1, 0)
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
	buf := (*pool)[:0]
	for {
		n, err := f.ReadAt(buf[len(buf):want], begin+int64(len(buf)))
		if err == io.EOF {
			b = b.upTo(begin + int64(len(buf)+n))
		} else if err != nil {
			return nil, 0, err
		}
		buf = buf[:len(buf)+n]
		if lines, skipped, more := lineBounds(buf, b, ends); !more {
			return lines, skipped, nil
		}
		want = int64(2*len(buf) + 1<<20)
		buf = slices.Grow(buf, int(want)-len(buf))
		*pool = buf
	}
}

// LinesBefore counts the line ends before offset in the file at path, to
// number lines in the file when a block's parse fails.
func LinesBefore(path string, offset int64, ends LineEnds) int {
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
		count += ends.count(buf[:n])
		if ends == AnyNewline && n > 0 && buf[n-1] == '\r' {
			// A "\r\n" cut by the read ends its line with the '\n': in
			// the next read, or at offset-1, where the block's skipped
			// line counts it.
			var next [1]byte
			if m, _ := f.ReadAt(next[:], pos+int64(n)); m == 1 && next[0] == '\n' {
				count--
			}
		}
		pos += int64(n)
		if err != nil || n == 0 {
			break
		}
	}
	return count
}
