package avro

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/io/files"
	"github.com/duskdata/dusk/io/storage"
)

func init() { files.Register(Format{}) }

// Format is Avro as a files.Format: object container files that describe
// themselves, each read whole.
type Format struct{}

// Name is "avro".
func (Format) Name() string { return "avro" }

// Describe reads each file's header for its schema.
func (Format) Describe(list []storage.File, _ json.RawMessage) (*files.Layout, error) {
	fl, err := files.EachFile(list, func(f storage.File) (files.FileLayout, error) {
		r, err := storage.OpenStream(f.Path)
		if err != nil {
			return files.FileLayout{}, err
		}
		defer r.Close()
		s, err := Inspect(r, f.Path)
		return files.FileLayout{Schema: s}, err
	})
	return &files.Layout{Files: fl}, err
}

// Filters: none are tested as the file is read.
func (Format) Filters() bool { return false }

// Read reads a whole file.
func (Format) Read(s files.Slice, cols []string, _ []files.Filter, _ json.RawMessage) (arrow.Record, error) {
	cols = s.Own(cols)
	if err := s.CheckStamp(); err != nil {
		return nil, err
	}
	r, err := storage.OpenStream(s.Path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.Path, err)
	}
	defer r.Close()
	return Read(r, s.Path, cols)
}

// Write writes rec as one file with WriteOptions given as JSON (its
// schema rec's).
func (Format) Write(w io.Writer, rec arrow.Record, opts json.RawMessage, _ bool) error {
	o, err := files.Options[WriteOptions]("write avro", opts)
	if err != nil {
		return err
	}
	o.Schema = rec.Schema()
	return Write(w, []arrow.Record{rec}, o)
}
