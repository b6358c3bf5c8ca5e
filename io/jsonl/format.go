package jsonl

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/io/files"
	"github.com/duskdata/dusk/io/storage"
)

func init() { files.Register(Format{}) }

// Format is JSON lines as a files.Format: files read by one schema,
// inferred from the start of the first file with data, in blocks of whole
// lines.
type Format struct{}

// Name is "json".
func (Format) Name() string { return "json" }

// ReadOptions say how to read: Types fix the types of the keys they name
// (a key the sample lacks is read too), TimeLayout is the Go layout of the
// date and timestamp keys Types names (ISO 8601 by default).
type ReadOptions struct {
	Types      map[string]Type `json:"types,omitempty"`
	TimeLayout string          `json:"time_layout,omitempty"`
}

// readOpts are what a read task needs besides its block.
type readOpts struct {
	Schema Schema `json:"schema"`
}

// Describe infers the keys and their types from the start of the first
// file with something in it, with ReadOptions given as JSON.
func (Format) Describe(list []storage.File, opts json.RawMessage) (*files.Layout, error) {
	o, err := files.Options[ReadOptions]("jsonl", opts)
	if err != nil {
		return nil, err
	}
	first := list[0]
	for _, f := range list {
		if f.Size > 0 {
			first = f
			break
		}
	}
	r, err := storage.OpenStream(first.Path)
	if err != nil {
		return nil, err
	}
	sample := make([]byte, SampleSize)
	n, err := io.ReadFull(r, sample)
	r.Close()
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	sample = sample[:n]
	if n == len(sample) { // drop the last, likely partial, line
		for n > 0 && sample[n-1] != '\n' {
			n--
		}
		sample = sample[:n]
	}
	schema, err := Infer(sample)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", first.Path, err)
	}
	given := make([]string, 0, len(o.Types))
	for name := range o.Types {
		given = append(given, name)
	}
	slices.Sort(given) // keys the sample lacks come last, in name order
	for _, name := range given {
		t := o.Types[name].Normal()
		found := false
		for i := range schema {
			if schema[i].Name == name {
				schema[i].Type, schema[i].Dictionary, schema[i].Layout, found = t, false, o.TimeLayout, true
			}
		}
		if !found {
			schema = append(schema, Column{Name: name, Type: t, Layout: o.TimeLayout})
		}
	}
	raw, err := json.Marshal(readOpts{Schema: schema})
	return &files.Layout{Schema: schema.Arrow(), ReadOpts: raw}, err
}

// Filters: none are tested as the file is read.
func (Format) Filters() bool { return false }

// Read parses a slice's block of lines: with no columns projected, a key
// the schema lacks fails the read (Strict).
func (Format) Read(s files.Slice, cols []string, _ []files.Filter, opts json.RawMessage) (arrow.Record, error) {
	o, err := files.Options[readOpts]("read "+s.Path, opts)
	if err != nil {
		return nil, err
	}
	var rec arrow.Record
	err = storage.ReadLines(s.Block(), storage.Newline, func(data []byte, skipped int) error {
		var err error
		if cols == nil { // nothing projected: no key may go unread
			rec, err = Strict(data, o.Schema)
		} else {
			rec, err = Parse(data, o.Schema, cols)
		}
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				pe.Line += storage.LinesBefore(s.Path, s.Start, storage.Newline) + skipped
			}
			return fmt.Errorf("read %s %w", s.Path, err)
		}
		return nil
	})
	return rec, err
}

// Write writes rec as JSON lines.
func (Format) Write(w io.Writer, rec arrow.Record, _ json.RawMessage, _ bool) error {
	return Write(w, rec)
}
