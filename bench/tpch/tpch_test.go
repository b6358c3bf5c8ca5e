package tpch_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/bench/tpch"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/io/parquet"
	"github.com/duskdata/dusk/io/storage"
)

// sf1 returns a folder of the SF1 tables, generating them the first time:
// in the user's cache, where later runs find them, or else in a temporary
// folder.
func sf1(t *testing.T) string {
	t.Helper()
	dir := ""
	if c, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(c, "dusk", "tpch-sf1")
	}
	if dir == "" || os.MkdirAll(dir, 0o755) != nil {
		dir = t.TempDir()
	}
	if err := tpch.Generate(dir, 1, testLog{t}); err != nil {
		t.Fatal(err)
	}
	return dir
}

type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) { l.t.Log(string(b)); return len(b), nil }

func testClient(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	t.Cleanup(cancel)
	c, err := dusk.NewClient(ctx, dusk.Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return dusk.WithClient(ctx, c)
}

// TestAnswersSF1 runs the 22 queries on the official SF1 data, reading
// the tables from their files, and checks every answer against TPC-H's.
func TestAnswersSF1(t *testing.T) {
	if testing.Short() {
		t.Skip("generates TPC-H SF1")
	}
	dir := sf1(t)
	ctx := testClient(t)
	tables, err := tpch.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tpch.Queries {
		q := &tpch.Queries[i]
		t.Run(q.ID, func(t *testing.T) { checkAnswer(t, ctx, q, tables) })
	}
}

// checkAnswer runs q on tables and compares its answer with TPC-H's.
func checkAnswer(t *testing.T, ctx context.Context, q *tpch.Query, tables *tpch.Tables) {
	t.Helper()
	f, err := q.Build(ctx, tables)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := f.Compute(ctx)
	if err != nil {
		t.Fatalf("%s: %v", q.ID, err)
	}
	defer tab.Release()
	got, err := tpch.AnswerRows(q, tab)
	if err != nil {
		t.Fatal(err)
	}
	_, want, err := tpch.ReadAnswer(filepath.Join("testdata", "sf1-answers", tpch.AnswerFile(q.ID)))
	if err != nil {
		t.Fatal(err)
	}
	if err := tpch.CompareAnswer(q, got, want); err != nil {
		t.Error(err)
	}
}

// tableOf is the frame of a table by its name.
func tableOf(t *tpch.Tables, name string) *dataframe.Frame {
	return map[string]*dataframe.Frame{
		"lineitem": t.Lineitem, "orders": t.Orders, "partsupp": t.Partsupp, "part": t.Part,
		"customer": t.Customer, "supplier": t.Supplier, "nation": t.Nation, "region": t.Region,
	}[name]
}

// TestOpenOtherLayouts reads tables as other writers lay them out: the
// large ones as one file each, with int64 keys and counts (the generator
// writes int32), the small ones as folders, and money DECIMAL(15,2); the
// queries' answers stay the official ones.
func TestOpenOtherLayouts(t *testing.T) {
	if testing.Short() {
		t.Skip("generates TPC-H SF1")
	}
	gen := sf1(t)
	// The generator writes keys as int32 (they fit at SF1). The large
	// tables are written below with int64 keys and counts, the others
	// keep int32 keys: the tables open with every key int64.
	if typ := dataframe.ReadParquet(filepath.Join(gen, "lineitem")).Schema().Field(1).Type; typ.ID() != arrow.INT32 {
		t.Errorf("l_partkey is written as %s, want int32", typ)
	}
	src, err := tpch.Open(gen)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testClient(t)
	dir := t.TempDir()
	for _, name := range tpch.TableNames() {
		f := tableOf(src, name)
		large := name == "lineitem" || name == "orders" || name == "partsupp"
		for _, c := range f.Schema().Fields() {
			switch {
			case c.Type.ID() == arrow.INT32 && large:
				f = f.WithColumn(c.Name, dataframe.Col(c.Name).Cast(arrow.PrimitiveTypes.Int64))
			case c.Type.ID() == arrow.FLOAT64:
				f = f.WithColumn(c.Name, dataframe.Col(c.Name).Cast(dataframe.Decimal(15, 2)))
			}
		}
		if large {
			tab, err := f.Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			err = storage.WriteFile(filepath.Join(dir, name+".parquet"), true, func(w io.Writer) error {
				return parquet.Write(w, tab.Schema(), []arrow.Record{tab.Record()}, parquet.WriteOptions{})
			})
			tab.Release()
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		if _, err := f.ToParquet(ctx, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	tables, err := tpch.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"q1", "q5", "q6", "q14", "q18"} {
		checkAnswer(t, ctx, tpch.QueryNamed(id), tables)
	}
}

// TestOpenBadInput: a missing table is named with the two paths looked
// for; a column of a type no query can use is named with both types.
func TestOpenBadInput(t *testing.T) {
	dir := t.TempDir()
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "n_nationkey", Type: arrow.BinaryTypes.String}, {Name: "n_name", Type: arrow.BinaryTypes.String},
		{Name: "n_regionkey", Type: arrow.PrimitiveTypes.Int64}, {Name: "n_comment", Type: arrow.BinaryTypes.String},
	}, nil))
	b.Field(0).(*array.StringBuilder).Append("0")
	b.Field(1).(*array.StringBuilder).Append("ALGERIA")
	b.Field(2).(*array.Int64Builder).Append(0)
	b.Field(3).(*array.StringBuilder).Append("x")
	rec := b.NewRecord()
	defer rec.Release()
	err := storage.WriteFile(filepath.Join(dir, "nation.parquet"), true, func(w io.Writer) error {
		return parquet.Write(w, rec.Schema(), []arrow.Record{rec}, parquet.WriteOptions{})
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tpch.Open(dir)
	for _, want := range []string{
		"no lineitem table in " + dir + ": neither " + filepath.Join(dir, "lineitem.parquet") + " nor a folder " + filepath.Join(dir, "lineitem") + "/",
		"column n_nationkey is utf8, expected an int32 or int64 key",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open: %v\nwant an error with %q", err, want)
		}
	}
}
