package dataframe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/io/csv"
	"github.com/duskdata/dusk/io/jsonl"
	"github.com/duskdata/dusk/io/storage"
)

const opReadJSON = "df-read-json"

// JSONOptions say how ReadJSON reads.
type JSONOptions struct {
	// Types fixes the types of the named keys ("int64", "float64",
	// "string", "bool", or any type Dusk takes as Arrow names it: "int32",
	// "date32" and "timestamp[us]" from ISO 8601 strings, "decimal(15, 2)"
	// from strings or numbers) instead of inferring them; a key given here
	// that the sample lacks is read too.
	Types map[string]string
	// TimeLayout is the Go layout of the date and timestamp keys that
	// Types names ("02/01/2006 15:04"); by default they are ISO 8601.
	TimeLayout string
	// BlockSize splits files larger than this many bytes into several
	// partitions. Default as ReadCSV's.
	BlockSize int64
}

// jsonOpts are what a JSON read task needs besides its block.
type jsonOpts struct {
	Schema jsonl.Schema `json:"schema"`
}

// ReadJSON reads JSON lines files (one object per line) that pattern names,
// as ReadCSV reads CSV: blocks of a datum up to the block size, compressed
// files (.gz, .zst) whole. The keys and their types are inferred from the
// start of the first file: integers are int64, other numbers float64,
// nested objects and arrays their JSON text. A key that the sample lacks
// fails the read where it appears, naming it, unless Types gives it.
func ReadJSON(pattern string, opts ...JSONOptions) *Frame {
	var o JSONOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	fail := func(err error) *Frame { return failed(fmt.Errorf("ReadJSON %s: %w", pattern, err)) }
	files, datum, err := datumFiles(pattern)
	if err != nil {
		return fail(err)
	}
	first := files[0] // the first file with something in it
	for _, f := range files {
		if f.Size > 0 {
			first = f
			break
		}
	}
	r, err := storage.OpenStream(first.Path)
	if err != nil {
		return fail(err)
	}
	sample := make([]byte, csv.SampleSize)
	n, err := io.ReadFull(r, sample)
	r.Close()
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fail(err)
	}
	sample = sample[:n]
	if n == len(sample) { // drop the last, likely partial, line
		for n > 0 && sample[n-1] != '\n' {
			n--
		}
		sample = sample[:n]
	}
	schema, err := jsonl.Infer(sample)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", first.Path, err))
	}
	given := make([]string, 0, len(o.Types))
	for name := range o.Types {
		given = append(given, name)
	}
	slices.Sort(given) // keys the sample lacks come last, in name order
	for _, name := range given {
		t := jsonl.Type(o.Types[name]).Normal()
		found := false
		for i := range schema {
			if schema[i].Name == name {
				schema[i].Type, schema[i].Dictionary, schema[i].Layout, found = t, false, o.TimeLayout, true
			}
		}
		if !found {
			schema = append(schema, jsonl.Column{Name: name, Type: t, Layout: o.TimeLayout})
		}
	}
	fields := make([]arrow.Field, len(schema))
	for i, c := range schema {
		fields[i] = arrow.Field{Name: c.Name, Type: csvType(csv.Type(c.Type)), Nullable: true}
	}
	full, hive, err := withHive(arrow.NewSchema(fields, nil), files)
	if err != nil {
		return fail(err)
	}
	block := o.BlockSize
	if block <= 0 {
		block = autoBlockSize()
	}
	var total int64
	for _, f := range files {
		total += f.Size
	}
	parts := pack(blockPieces(files, datum, hive, block), block)
	return fileSource("read-json", opReadJSON, parts, full, hive, jsonOpts{Schema: schema}, size{total, -1})
}

func readJSONSlice(s fileSlice, cols []string, rawOpts json.RawMessage) (arrow.Record, error) {
	var o jsonOpts
	if err := json.Unmarshal(rawOpts, &o); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opReadJSON, err)
	}
	var rec arrow.Record
	err := storage.ReadLines(s.block(), storage.Newline, func(data []byte, skipped int) error {
		var err error
		if cols == nil { // nothing projected: no key may go unread
			rec, err = jsonl.Strict(data, o.Schema)
		} else {
			rec, err = jsonl.Parse(data, o.Schema, cols)
		}
		if err != nil {
			var pe *jsonl.ParseError
			if errors.As(err, &pe) {
				pe.Line += storage.LinesBefore(s.Path, s.Start, storage.Newline) + skipped
			}
			return fmt.Errorf("read %s %w", s.Path, err)
		}
		return nil
	})
	return rec, err
}

// JSONWriteOptions say how ToJSON writes.
type JSONWriteOptions struct {
	// SingleFile writes every partition, in order, into the one file path.
	SingleFile bool
	// Overwrite replaces files already there, and removes the part files
	// of an earlier write to the directory path that this one does not
	// replace.
	Overwrite bool
}

// ToJSON writes the frame as JSON lines, one object per row, named as
// ToCSV names its files (part.N.json in a directory, or path's '*'
// replaced by the partition's number); .gz and .zst names are compressed.
// Every file is written atomically. It returns the files written.
func (f *Frame) ToJSON(ctx context.Context, path string, opts ...JSONWriteOptions) ([]string, error) {
	var o JSONWriteOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	return f.writeText(ctx, "ToJSON", path, "json", csv.WriteOptions{}, o.SingleFile, o.Overwrite)
}
