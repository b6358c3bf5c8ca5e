package dataframe

import (
	"context"

	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/duskdata/dusk/io/jsonl"
)

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
	ro := jsonl.ReadOptions{TimeLayout: o.TimeLayout}
	if len(o.Types) > 0 {
		ro.Types = make(map[string]jsonl.Type, len(o.Types))
		for k, v := range o.Types {
			ro.Types[k] = jsonl.Type(v)
		}
	}
	block := o.BlockSize
	if block <= 0 {
		block = autoBlockSize()
	}
	return frameOf(plan.ReadFormat("ReadJSON", "json", pattern, ro, plan.ReadOptions{Size: block}))
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
	return f.writeText(ctx, "ToJSON", path, "json", nil, o.SingleFile, o.Overwrite)
}
