package dataframe

import (
	"context"
	"fmt"

	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/duskdata/dusk/io/parquet"
	"github.com/duskdata/dusk/io/storage"
)

// ParquetOptions say how ReadParquet reads.
type ParquetOptions struct {
	// PartitionSize is the most decoded bytes of row groups put in one
	// partition; a larger row group is a partition alone. Default 128 MiB,
	// or a quarter of the memory one task of the default client's workers
	// may use where that is less (at least 4 MiB): a partition is held
	// decoded beside the pages it is decoded from, and the tasks after the
	// read build on it.
	PartitionSize int64
	// Union reads files whose columns differ: the frame has every column
	// any file has, null where a file lacks it. Without it such files are
	// an error that lists them side by side.
	Union bool
}

// ReadParquet reads the Parquet files that pattern names (a file, a
// directory, a glob, or their URLs: see storage.Datums for how the glob
// makes datums). Each partition holds row groups of one datum, up to the
// partition size. Only the columns used are decoded, and a filter pushed
// down to the read skips the row groups whose statistics rule it out.
// Hive-style directories (year=2024/month=01/) become columns, and a filter
// on them skips whole directories. Only the files' footers are read here.
func ReadParquet(pattern string, opts ...ParquetOptions) *Frame {
	var o ParquetOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.PartitionSize <= 0 {
		o.PartitionSize = sizedByMemory(DefaultPartitionSize, 4)
	}
	return frameOf(plan.ReadFormat("ReadParquet", "parquet", pattern, nil, plan.ReadOptions{Union: o.Union, Size: o.PartitionSize}))
}

// ParquetWriteOptions say how ToParquet writes.
type ParquetWriteOptions struct {
	// Compression: "zstd" (default), "snappy", "gzip" or "none".
	Compression string
	// PartitionBy writes each partition's rows in hive-style directories
	// by the values of these columns (dir/year=2024/part.0.parquet),
	// without the columns themselves in the files.
	PartitionBy []string
	// Overwrite replaces files already there, and removes the part files
	// of an earlier write to dir that this one does not replace; without
	// it a file in the way fails the write and is left as it was.
	Overwrite bool
	// RowGroupRows is the most rows in a row group. Default 1,048,576.
	RowGroupRows int64
}

// ToParquet writes the frame to the directory dir (a path or URL), one file
// per partition, part.N.parquet, each written atomically; strings with few
// distinct values are dictionary-encoded. It returns the files written.
func (f *Frame) ToParquet(ctx context.Context, dir string, opts ...ParquetWriteOptions) ([]string, error) {
	dir = storage.Abs(dir) // as the caller means it, not the worker that writes
	var o ParquetWriteOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	for _, c := range o.PartitionBy {
		if f.err == nil && !f.plan.Schema().HasField(c) {
			return nil, fmt.Errorf("ToParquet: no column %q to partition by (the frame has %v)", c, plan.Names(f.plan.Schema()))
		}
	}
	wo := parquet.WriteOptions{Compression: o.Compression, RowGroupRows: o.RowGroupRows}
	paths, err := f.write(ctx, "ToParquet", ops.WriteOp("parquet"), func(i int) any {
		return ops.WriteFileArgs{Dir: dir, Part: i, PartitionBy: o.PartitionBy, Overwrite: o.Overwrite, Opts: ops.MustJSON(wo)}
	})
	if o.Overwrite {
		return replaced("ToParquet", dir, "parquet", paths, err)
	}
	return paths, err
}
