package csv

import (
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/io/storage"
)

// Block is a byte range of a file that one partition parses.
type Block = storage.Block

// Blocks splits files into blocks of at most size bytes: see storage.Blocks.
func Blocks(files []storage.File, size int64) []Block { return storage.Blocks(files, size) }

// ReadBlock reads and parses one block. In a file's first block the header
// line is checked against schema's names.
func ReadBlock(b Block, schema Schema, opts Options) (arrow.Record, error) {
	opts, err := opts.WithDefaults()
	if err != nil {
		return nil, err
	}
	var rec arrow.Record
	ends := opts.lineEnds()
	err = storage.ReadLines(b, ends, func(data []byte, skipped int) error {
		if b.Size == 0 {
			rec, err = Parse(nil, schema, opts) // an empty file: no rows
			return err
		}
		if b.Start == 0 && !opts.NoHeader {
			start, blank := skipBlankLines(data, 0, opts.Terminator)
			skipped += blank
			if start == len(data) {
				rec, err = Parse(nil, schema, opts) // blank lines alone: no header, no rows
				return err
			}
			header, next, err := splitLine(data, start, opts.Delimiter, opts.Terminator)
			if err != nil {
				return fmt.Errorf("read %s: header: %w", b.Path, err)
			}
			if len(opts.Names) == 0 && !slices.Equal(header, schema.Names()) {
				return fmt.Errorf("read %s: its header %q differs from the columns %q of the first file",
					b.Path, header, schema.Names())
			}
			data = data[next:]
			skipped++
		}
		rec, err = Parse(data, schema, opts)
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.Path = b.Path
			pe.Line += storage.LinesBefore(b.Path, b.Start, ends) + skipped
		}
		return err
	})
	return rec, err
}
