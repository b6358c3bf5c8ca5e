package daemon_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/decimal128"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/parquet-go/parquet-go/format"

	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/parquettest"
	dparquet "github.com/duskdata/dusk/io/parquet"
)

// A worker process given damaged Parquet files fails each read with an
// error naming the file and what is wrong, and serves on: it is not killed
// and restarted by its nanny, as it was when a claim of 2^31-1 rows made
// it allocate 32 GiB (issue 54).
func TestDamagedParquetAcrossProcesses(t *testing.T) {
	sched, workers := startCluster(t, bins.dusktest, 1, "--memory-limit", "512MiB")
	ctx := connect(t, testCtx(t), sched.addr)
	dir := t.TempDir()
	rows := func(m *format.FileMetaData) { m.NumRows, m.RowGroups[0].NumRows = math.MaxInt32, math.MaxInt32 }
	for _, c := range []struct {
		name string
		edit func(*format.FileMetaData)
		want string
	}{
		{"rows.parquet", rows, "its pages hold 100 values, the row group 2147483647 rows"},
		{"dictionary.parquet", func(m *format.FileMetaData) {
			cc := &m.RowGroups[0].Columns[1].MetaData
			cc.DictionaryPageOffset = cc.DataPageOffset + 1
		}, "the dictionary page at byte"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, damagedFile(t, c.edit), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := dataframe.ReadParquet(path).Compute(ctx)
		if err == nil || !strings.Contains(err.Error(), "read "+path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error naming the file and %q", c.name, err, c.want)
		}
	}
	if v, err := must(testInc.Submit(ctx, 1)).Result(ctx); err != nil || v != 2 {
		t.Fatalf("after the damaged files: %v, %v", v, err)
	}
	if log := workers[0].stderr.String(); strings.Contains(log, "restart") || strings.Contains(log, "exceeded its memory budget") {
		t.Errorf("the worker was restarted:\n%s", log)
	}
}

// damagedFile is a Parquet file of a decimal and a few-valued string
// column, 100 rows, its footer changed by edit.
func damagedFile(t *testing.T, edit func(*format.FileMetaData)) []byte {
	t.Helper()
	typ := &arrow.Decimal128Type{Precision: 30, Scale: 4}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: typ, Nullable: true}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range 100 {
		b.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i)))
		b.Field(1).(*array.StringBuilder).Append([]string{"a", "b", "c"}[i%3])
	}
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	if err := dparquet.Write(&buf, schema, []arrow.Record{rec}, dparquet.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return parquettest.WithFooter(t, buf.Bytes(), edit)
}
