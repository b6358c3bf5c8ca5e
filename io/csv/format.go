package csv

import (
	"encoding/json"
	"io"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/io/files"
	"github.com/duskdata/dusk/io/storage"
)

func init() { files.Register(Format{}) }

// Format is CSV as a files.Format: files read by one schema, given or
// inferred from the first, in blocks of whole lines.
type Format struct{}

// Name is "csv".
func (Format) Name() string { return "csv" }

// readOpts are what a read task needs besides its block.
type readOpts struct {
	Schema Schema  `json:"schema"`
	Opts   Options `json:"opts"`
}

// Describe infers the schema from the start of the first file, with
// Options given as JSON (Types fix the columns they name).
func (Format) Describe(list []storage.File, opts json.RawMessage) (*files.Layout, error) {
	o, err := files.Options[Options]("csv", opts)
	if err != nil {
		return nil, err
	}
	for k, v := range o.Types {
		o.Types[k] = v.Normal()
	}
	schema, err := Infer(list[0].Path, o)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(readOpts{Schema: schema, Opts: o})
	return &files.Layout{Schema: schema.Arrow(), ReadOpts: raw}, err
}

// Filters: none are tested as the file is read.
func (Format) Filters() bool { return false }

// Read parses a slice's block of lines.
func (Format) Read(s files.Slice, cols []string, _ []files.Filter, opts json.RawMessage) (arrow.Record, error) {
	o, err := files.Options[readOpts]("read "+s.Path, opts)
	if err != nil {
		return nil, err
	}
	o.Opts.Columns = cols
	return ReadBlock(s.Block(), o.Schema, o.Opts)
}

// Write writes rec with WriteOptions given as JSON; a record that
// continues a file has no header.
func (Format) Write(w io.Writer, rec arrow.Record, opts json.RawMessage, continued bool) error {
	o, err := files.Options[WriteOptions]("write csv", opts)
	if err != nil {
		return err
	}
	o.NoHeader = o.NoHeader || continued
	return Write(w, rec, o)
}
