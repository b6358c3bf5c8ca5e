package csv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/io/storage"
)

// Block is a byte range of a file that one partition parses: the lines that
// start inside [Start, End). The file's header, if any, is in its first block.
type Block struct {
	Path  string `json:"path"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Size  int64  `json:"size"` // the whole file's
}

// Blocks splits files into blocks of about size bytes, at least one a file;
// a compressed file is one block.
func Blocks(files []storage.File, size int64) []Block {
	var out []Block
	for _, f := range files {
		n := max(1, (f.Size+size-1)/size)
		if storage.Compressed(f.Path) {
			n = 1
		}
		for i := int64(0); i < n; i++ {
			end := min((i+1)*size, f.Size)
			if i == n-1 {
				end = f.Size
			}
			out = append(out, Block{Path: f.Path, Start: i * size, End: end, Size: f.Size})
		}
	}
	return out
}

// ReadBlock reads and parses one block. In a file's first block the header
// line is checked against schema's names.
func ReadBlock(b Block, schema Schema, opts Options) (arrow.Record, error) {
	opts, err := opts.WithDefaults()
	if err != nil {
		return nil, err
	}
	f, err := storage.Open(b.Path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", b.Path, err)
	}
	defer f.Close()
	buf := getBuffer()
	defer putBuffer(buf)
	var data []byte
	var skipped int
	if storage.Compressed(b.Path) {
		if data, err = storage.ReadAll(b.Path, *buf); err != nil {
			return nil, err
		}
		*buf = data
	} else {
		data, skipped, err = readLines(f, b, buf)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", b.Path, err)
	}
	if b.Size == 0 {
		return Parse(nil, schema, opts) // an empty file: no rows
	}
	if b.Start == 0 && !opts.NoHeader {
		header, next, err := splitLine(data, 0, opts.Delimiter)
		if err != nil {
			return nil, fmt.Errorf("read %s: header: %w", b.Path, err)
		}
		if len(opts.Names) == 0 && !equalNames(header, schema.Names()) {
			return nil, fmt.Errorf("read %s: its header %q differs from the columns %q of the first file",
				b.Path, header, schema.Names())
		}
		data = data[next:]
		skipped++
	}
	rec, err := Parse(data, schema, opts)
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.Path = b.Path
			pe.Line += linesBefore(f, b.Start) + skipped
		}
		return nil, err
	}
	return rec, nil
}

// buffers recycles read buffers: parsed columns copy what they keep, so a
// block's bytes are garbage once parsed, and reusing them spares the cost of
// fresh memory (a page fault per 4 KiB) on every block.
var buffers sync.Pool

func getBuffer() *[]byte {
	if b, ok := buffers.Get().(*[]byte); ok {
		return b
	}
	return new([]byte)
}

func putBuffer(b *[]byte) { buffers.Put(b) }

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
		*pool = make([]byte, want)
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

// linesBefore counts the line breaks before offset, to number lines in the
// file when a block's parse fails.
func linesBefore(f io.ReaderAt, offset int64) int {
	if offset <= 0 {
		return 0
	}
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

func equalNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
