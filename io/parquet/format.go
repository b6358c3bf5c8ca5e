package parquet

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/io/files"
	"github.com/duskdata/dusk/io/storage"
)

func init() { files.Register(Format{}) }

// Format is Parquet as a files.Format: files that describe themselves,
// read by row group, with filters tested as pages decode.
type Format struct{}

// Name is "parquet".
func (Format) Name() string { return "parquet" }

// Describe reads each file's footer: its schema, and its row groups with
// their statistics.
func (Format) Describe(list []storage.File, _ json.RawMessage) (*files.Layout, error) {
	fl, err := files.EachFile(list, func(f storage.File) (files.FileLayout, error) {
		r, err := storage.Open(f.Path)
		if err != nil {
			return files.FileLayout{}, err
		}
		defer r.Close()
		info, err := Inspect(r, r.Size(), f.Path)
		if err != nil {
			return files.FileLayout{}, err
		}
		units := make([]files.Unit, len(info.RowGroups))
		for g, rg := range info.RowGroups {
			units[g] = files.Unit{Rows: rg.Rows, Bytes: rg.Bytes, Stats: rg.Columns}
		}
		return files.FileLayout{Schema: info.Schema, Units: units}, nil
	})
	return &files.Layout{Files: fl}, err
}

// Filters: filters are tested as pages decode (ReadWhere).
func (Format) Filters() bool { return true }

// Read reads a slice's row groups (ReadWhere).
func (Format) Read(s files.Slice, cols []string, where []files.Filter, _ json.RawMessage) (arrow.Record, error) {
	cols = s.Own(cols)
	f, err := storage.Open(s.Path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.Path, err)
	}
	defer f.Close()
	if err := s.CheckStamp(); err != nil {
		return nil, err
	}
	return ReadWhere(f, f.Size(), s.Path, s.Units, cols, where)
}

// Write writes rec as one file with WriteOptions given as JSON.
func (Format) Write(w io.Writer, rec arrow.Record, opts json.RawMessage, _ bool) error {
	o, err := files.Options[WriteOptions]("write parquet", opts)
	if err != nil {
		return err
	}
	return Write(w, rec.Schema(), []arrow.Record{rec}, o)
}
