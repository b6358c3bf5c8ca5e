package storage

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lineFiles are contents whose lines blocks must share out exactly.
var lineFiles = map[string]string{
	"empty":       "",
	"one line":    "a,b,c",
	"trailing":    "a,b\nc,d\n",
	"crlf":        "a,b\r\nc,d\r\ne,f\r\n",
	"blank lines": "\n\nx\n\n",
	"long line":   "h\n" + strings.Repeat("x", 200<<10) + "\nshort\n" + strings.Repeat("y", 70<<10),
	"many lines":  strings.Repeat("id1,id2,3.25\n", 20000),
	"no last \\n": strings.Repeat("0123456789\n", 999) + "end",
	"lone cr":     "x\r1\r22\r333\r",
	"mixed ends":  strings.Repeat("a,b\rc,d\r\ne,f\n\r\n", 3000) + "g\r",
	"cr at ends":  "\r\r\n\n\r" + strings.Repeat("z", 5000) + "\r\n",
}

// refLines counts the line ends in s, and reports whether s ends a line
// (is empty, or ends in a line end that is whole): byte by byte, as a
// reference.
func refLines(s string, ends LineEnds, whole string) (n int, atStart bool) {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\n':
			n++
		case s[i] == '\r' && ends == AnyNewline && (i+1 >= len(whole) || whole[i+1] != '\n'):
			n++
		}
	}
	last := len(s) - 1
	atStart = len(s) == 0 || s[last] == '\n' ||
		ends == AnyNewline && s[last] == '\r' && (len(s) == len(whole) || whole[len(s)] != '\n')
	return n, atStart
}

// TestReadLinesSharesOutEveryLine checks, for local files (mapped) and
// object-store ones (read), at several block sizes, that the blocks' lines
// put together are the file, and that each block's first line is numbered
// as a count of the line breaks before it says.
func TestReadLinesSharesOutEveryLine(t *testing.T) {
	dir := t.TempDir()
	for name, content := range lineFiles {
		for _, root := range []string{dir, "mem://lines-test"} {
			p := root + "/" + strings.ReplaceAll(name, " ", "-") + ".txt"
			if err := WriteFile(p, true, func(w io.Writer) error { _, err := io.WriteString(w, content); return err }); err != nil {
				t.Fatal(err)
			}
			f, err := Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, size := range []int64{1, 3, 100, 4096, 65 << 10, 1 << 30} {
				if int64(len(content))/size > 1000 {
					continue // too many blocks to number each from the file's start
				}
				for _, ends := range []LineEnds{Newline, AnyNewline} {
					t.Run(fmt.Sprintf("%s/%s/%d/ends%d", name, root[:3], size, ends), func(t *testing.T) {
						var got bytes.Buffer
						for _, b := range Blocks([]File{f}, size) {
							err := ReadLines(b, ends, func(data []byte, skipped int) error {
								if len(data) > 0 {
									want, atStart := refLines(content[:got.Len()], ends, content)
									if !atStart {
										t.Errorf("block at %d: its lines start at %d, inside a line", b.Start, got.Len())
									}
									if n := LinesBefore(p, b.Start, ends); n+skipped != want {
										t.Errorf("block at %d: %d lines before it + %d skipped, want %d", b.Start, n, skipped, want)
									}
								}
								got.Write(data)
								return nil
							})
							if err != nil {
								t.Fatal(err)
							}
						}
						if got.String() != content {
							t.Errorf("blocks read %d bytes that differ from the file's %d", got.Len(), len(content))
						}
					})
				}
			}
		}
	}
}

// TestReadLinesFileChanged checks that a file that shrinks under its
// mapping fails the read with an error, and that one that shrank after its
// blocks were made reads what is left.
func TestReadLinesFileChanged(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.csv")
	content := strings.Repeat("a,b,c\n", 100000)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	blocks := Blocks([]File{f}, int64(len(content)/2))
	var last byte
	err = ReadLines(blocks[0], Newline, func(data []byte, _ int) error {
		if err := os.Truncate(p, 0); err != nil {
			t.Fatal(err)
		}
		last = data[len(data)-1] // beyond the file's end now
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("reading a file truncated under its mapping: %v (read %q), want an error", err, last)
	}

	if err := os.WriteFile(p, []byte(content[:len(content)/4]), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for _, b := range blocks {
		if err := ReadLines(b, Newline, func(data []byte, _ int) error { got = append(got, data...); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if string(got) != content[:len(content)/4] {
		t.Errorf("a file that shrank after its blocks were made: read %d bytes, want %d", len(got), len(content)/4)
	}
}
