package ops

import (
	"encoding/json"
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/io/files"

	// The file formats register themselves with io/files.
	_ "github.com/duskdata/dusk/io/avro"
	_ "github.com/duskdata/dusk/io/csv"
	_ "github.com/duskdata/dusk/io/jsonl"
	_ "github.com/duskdata/dusk/io/parquet"
)

// Every file format (io/files) gets a read step, df-read-NAME, and a write
// step a file per partition, df-write-NAME; the rest of reading and writing
// files is the same for every format (files.go: datums, pieces, hive
// columns, pruning, the cache's fingerprints; write.go: atomic files, hive
// directories, single text files).
func init() {
	for _, name := range files.Names() {
		f, _ := files.Named(name)
		registry.Register(ReadOp(name), func(_ *registry.Context, raw []byte, _ []any) (any, error) {
			return ReadFiles(ReadOp(name), raw, f, nil)
		})
		registry.RegisterEffect(WriteOp(name), writeFileOp(f))
	}
}

// ReadOp and writeOp name a format's read and write steps.
func ReadOp(format string) string  { return "df-read-" + format }
func WriteOp(format string) string { return "df-write-" + format }

// FormatOf is the format a read step reads.
func FormatOf(op string) (files.Format, error) {
	for _, name := range files.Names() {
		if ReadOp(name) == op {
			return files.Named(name)
		}
	}
	return nil, fmt.Errorf("no file format reads %q", op)
}

// WriteFileArgs are a write step's arguments: the directory, the part's
// number, the hive columns, and the format's own options.
type WriteFileArgs struct {
	Dir         string          `json:"dir"`
	Part        int             `json:"part"`
	PartitionBy []string        `json:"partition_by,omitempty"`
	Overwrite   bool            `json:"overwrite,omitempty"`
	Opts        json.RawMessage `json:"opts"`
}

// writeFileOp is the write step of a format written a file per partition:
// part.N.ext in the directory, or in its hive directories.
func writeFileOp(f files.Format) registry.Op {
	return func(_ *registry.Context, raw []byte, inputs []any) (any, error) {
		var a WriteFileArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s: %w", WriteOp(f.Name()), err)
		}
		rec := inputs[0].(arrow.Record)
		name := fmt.Sprintf("part.%d.%s", a.Part, f.Name())
		return writeSplit(rec, a.Dir, name, a.PartitionBy, a.Overwrite, func(w writer, r arrow.Record) error {
			return f.Write(w, r, a.Opts, false)
		})
	}
}
