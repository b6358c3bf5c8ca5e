package dataframe

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/io/files"
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
	return frameOf(readFormat("ReadParquet", "parquet", pattern, nil, readOptions{union: o.Union, size: o.PartitionSize}))
}

// mergeSlices joins consecutive slices of row groups of one file into one
// slice of several row groups, read as one. A partition's pieces stay a row
// group each, so that a filter skips the row groups it rules out.
func mergeSlices(in []files.Slice) []files.Slice {
	var out []files.Slice
	for _, s := range in {
		if n := len(out); n > 0 && s.Units != nil && out[n-1].Units != nil && out[n-1].Path == s.Path {
			out[n-1].Units = append(slices.Clip(out[n-1].Units), s.Units...)
			continue
		}
		out = append(out, s)
	}
	return out
}

// unionRanges is what is known of the values of two units together.
func unionRanges(a, b map[string]expr.Range) map[string]expr.Range {
	out := make(map[string]expr.Range, len(a))
	for col, ra := range a {
		rb, ok := b[col]
		if !ok {
			continue
		}
		r := expr.Range{Nulls: ra.Nulls || rb.Nulls, AllNull: ra.AllNull && rb.AllNull, Paged: ra.Paged && rb.Paged}
		switch {
		case ra.AllNull:
			r.Min, r.Max = rb.Min, rb.Max
		case rb.AllNull:
			r.Min, r.Max = ra.Min, ra.Max
		case ra.Min != nil && rb.Min != nil:
			r.Min, r.Max = ra.Min, ra.Max
			if c, ok := expr.Compare(rb.Min, ra.Min); ok && c < 0 {
				r.Min = rb.Min
			}
			if c, ok := expr.Compare(rb.Max, ra.Max); ok && c > 0 {
				r.Max = rb.Max
			}
		}
		out[col] = r
	}
	return out
}

// statsRange turns a row group's column statistics into a range.
func statsRange(t arrow.DataType, st files.ColumnStats) expr.Range {
	r := expr.Range{Nulls: st.Nulls > 0, Paged: st.Paged}
	if !st.HasMinMax {
		r.Nulls = true // unknown
		return r
	}
	switch kernel.PlainType(t).ID() {
	case arrow.INT64, arrow.INT32, arrow.INT16, arrow.INT8, arrow.UINT32, arrow.UINT16, arrow.UINT8:
		r.Min, r.Max = st.MinInt, st.MaxInt
	case arrow.FLOAT64, arrow.FLOAT32:
		r.Min, r.Max = st.MinFloat, st.MaxFloat
	case arrow.STRING:
		r.Min, r.Max = st.MinString, st.MaxString
	case arrow.BOOL:
		r.Min, r.Max = st.MinBool, st.MaxBool
	}
	return r
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
		if f.err == nil && !f.plan.schema().HasField(c) {
			return nil, fmt.Errorf("ToParquet: no column %q to partition by (the frame has %v)", c, names(f.plan.schema()))
		}
	}
	wo := parquet.WriteOptions{Compression: o.Compression, RowGroupRows: o.RowGroupRows}
	paths, err := f.write(ctx, "ToParquet", writeOp("parquet"), func(i int) any {
		return writeFileArgs{Dir: dir, Part: i, PartitionBy: o.PartitionBy, Overwrite: o.Overwrite, Opts: mustJSON(wo)}
	})
	if o.Overwrite {
		return replaced("ToParquet", dir, "parquet", paths, err)
	}
	return paths, err
}
