package dataframe

import (
	"context"

	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/duskdata/dusk/io/avro"
	"github.com/duskdata/dusk/io/storage"
)

// AvroOptions say how ReadAvro reads.
type AvroOptions struct {
	// Union reads files whose columns differ: every column any file has,
	// null where a file lacks it. Without it such files are an error that
	// lists them side by side.
	Union bool
	// PartitionSize is the most bytes of files put in one partition (a
	// larger file is a partition alone). Default 128 MiB, or an eighth of
	// the memory one task of the default client's workers may use where
	// that is less (at least 4 MiB): blocks may be compressed, and decode
	// to more than their bytes.
	PartitionSize int64
}

// ReadAvro reads Avro object container files that pattern names, as
// ReadParquet does: small files of one datum share a partition, hive
// directories become columns. Each file's schema (record fields of long,
// int, double, float, boolean, string, enum or bytes, each optionally a
// union with null) is read from its header here.
func ReadAvro(pattern string, opts ...AvroOptions) *Frame {
	var o AvroOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.PartitionSize <= 0 {
		o.PartitionSize = sizedByMemory(DefaultPartitionSize, 8)
	}
	return frameOf(plan.ReadFormat("ReadAvro", "avro", pattern, nil, plan.ReadOptions{Union: o.Union, Size: o.PartitionSize}))
}

// AvroWriteOptions say how ToAvro writes.
type AvroWriteOptions struct {
	// Compression of the blocks: "zstd" (default), "deflate", "snappy" or
	// "none".
	Compression string
	// Overwrite replaces files already there, and removes the part files
	// of an earlier write to dir that this one does not replace.
	Overwrite bool
}

// ToAvro writes the frame to the directory dir (a path or URL) as Avro
// object container files, part.N.avro, one per partition, each written
// atomically; every field is a union of null and its type. It returns the
// files written.
func (f *Frame) ToAvro(ctx context.Context, dir string, opts ...AvroWriteOptions) ([]string, error) {
	dir = storage.Abs(dir) // as the caller means it, not the worker that writes
	var o AvroWriteOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	paths, err := f.write(ctx, "ToAvro", ops.WriteOp("avro"), func(i int) any {
		return ops.WriteFileArgs{Dir: dir, Part: i, Overwrite: o.Overwrite, Opts: ops.MustJSON(avro.WriteOptions{Compression: o.Compression})}
	})
	if o.Overwrite {
		return replaced("ToAvro", dir, "avro", paths, err)
	}
	return paths, err
}
