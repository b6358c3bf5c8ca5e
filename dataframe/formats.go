package dataframe

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/io/parquet"
)

// fileFormat is what one file format gives the steps that read and write
// files, which are otherwise the same for every format (files.go: datums,
// pieces, hive columns, pruning, the cache's fingerprints; write.go:
// atomic files, hive directories): how a task reads one slice of a file,
// and, for the formats written a file per partition, how one record is
// written.
type fileFormat struct {
	// readSlice reads the columns cols (nil: all) of one slice of a file,
	// with the options the frame's constructor recorded for the format.
	readSlice func(s fileSlice, cols []string, opts json.RawMessage) (arrow.Record, error)
	// readWhere, for a format whose reader tests filters as it decodes,
	// reads as readSlice only the rows that every filter passes.
	readWhere func(s fileSlice, cols []string, where []parquet.Filter, opts json.RawMessage) (arrow.Record, error)
	// writeOp names the write step, and writeFile writes one record with
	// the options ToX was given; nil for the text formats (writeTextOp).
	writeOp   string
	ext       string
	writeFile func(w io.Writer, rec arrow.Record, opts json.RawMessage) error
}

// formats are the file formats, by their read step's name.
var formats = map[string]fileFormat{
	opReadCSV:     {readSlice: readCSVSlice},
	opReadJSON:    {readSlice: readJSONSlice},
	opReadParquet: {readSlice: readParquetSlice, readWhere: readParquetWhere, writeOp: opWriteParquet, ext: "parquet", writeFile: writeParquetFile},
	opReadAvro:    {readSlice: readAvroSlice, writeOp: opWriteAvro, ext: "avro", writeFile: writeAvroFile},
}

func init() {
	for op, f := range formats {
		registry.Register(op, readFilesOp(op, f))
		if f.writeOp != "" {
			registry.RegisterEffect(f.writeOp, writeFileOp(f))
		}
	}
}

// readFilesOp is the read step of a format.
func readFilesOp(op string, f fileFormat) registry.Op {
	return func(_ *registry.Context, raw []byte, _ []any) (any, error) {
		return readFiles(op, raw, f, nil)
	}
}

// writeFileArgs are a write step's arguments: the directory, the part's
// number, the hive columns, and the format's own options.
type writeFileArgs struct {
	Dir         string          `json:"dir"`
	Part        int             `json:"part"`
	PartitionBy []string        `json:"partition_by,omitempty"`
	Overwrite   bool            `json:"overwrite,omitempty"`
	Opts        json.RawMessage `json:"opts"`
}

// writeFileOp is the write step of a format written a file per partition:
// part.N.ext in the directory, or in its hive directories.
func writeFileOp(f fileFormat) registry.Op {
	return func(_ *registry.Context, raw []byte, inputs []any) (any, error) {
		var a writeFileArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s: %w", f.writeOp, err)
		}
		rec := inputs[0].(arrow.Record)
		name := fmt.Sprintf("part.%d.%s", a.Part, f.ext)
		return writeSplit(rec, a.Dir, name, a.PartitionBy, a.Overwrite, func(w writer, r arrow.Record) error {
			return f.writeFile(w, r, a.Opts)
		})
	}
}
