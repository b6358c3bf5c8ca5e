package dataframe_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/s3test"
	"github.com/duskdata/dusk/io/storage"
)

// allRows are rows' values, the reference a read of what was written
// must give back.
func allRows(rows []testRow) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = r.values()
	}
	return out
}

// stores are the places the round trips write to and read from.
func stores(t *testing.T, name string) map[string]string {
	return map[string]string{
		"local": t.TempDir(),
		"mem":   "mem://io-test/" + name,
		"s3":    s3test.Start(t, "io-"+strings.ToLower(name)),
	}
}

// TestWriteReadRoundTrips writes a frame of three partitions (one empty)
// in every format to every store and reads it back.
func TestWriteReadRoundTrips(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(41, 300)
	f := arrowFrame(t, rows, []int{120, 0, 180})
	formats := []struct {
		name  string
		write func(dir string) ([]string, error)
		read  func(dir string) *dataframe.Frame
		files int
	}{
		{"parquet", func(dir string) ([]string, error) { return f.ToParquet(ctx, dir) },
			func(dir string) *dataframe.Frame { return dataframe.ReadParquet(dir + "/*") }, 3},
		{"csv", func(dir string) ([]string, error) { return f.ToCSV(ctx, storage.Join(dir, "x-*.csv")) },
			func(dir string) *dataframe.Frame {
				return dataframe.ReadCSV(dir+"/*", dataframe.CSVOptions{Types: csvTypes})
			}, 3},
		{"csv-single-gz", func(dir string) ([]string, error) {
			return f.ToCSV(ctx, storage.Join(dir, "all.csv.gz"), dataframe.CSVWriteOptions{SingleFile: true})
		}, func(dir string) *dataframe.Frame {
			return dataframe.ReadCSV(storage.Join(dir, "all.csv.gz"), dataframe.CSVOptions{Types: csvTypes})
		}, 1},
		{"avro", func(dir string) ([]string, error) { return f.ToAvro(ctx, dir) },
			func(dir string) *dataframe.Frame { return dataframe.ReadAvro(dir + "/*") }, 3},
		{"json-zst", func(dir string) ([]string, error) { return f.ToJSON(ctx, storage.Join(dir, "p-*.json.zst")) },
			func(dir string) *dataframe.Frame {
				return dataframe.ReadJSON(dir+"/*", dataframe.JSONOptions{Types: csvTypes})
			}, 3},
	}
	for store, root := range stores(t, "roundtrip") {
		for _, format := range formats {
			t.Run(store+"/"+format.name, func(t *testing.T) {
				dir := storage.Join(root, format.name)
				paths, err := format.write(dir)
				if err != nil {
					t.Fatal(err)
				}
				if len(paths) != format.files {
					t.Fatalf("wrote %v, want %d files", paths, format.files)
				}
				back := format.read(dir)
				checkRows(t, tableRows(t, compute(t, ctx, back)), allRows(rows), 0)
				// Writing again over the files fails and keeps them.
				if _, err := format.write(dir); err == nil || !strings.Contains(err.Error(), "already exists") {
					t.Fatalf("second write: %v, want ErrExist", err)
				}
				checkRows(t, tableRows(t, compute(t, ctx, format.read(dir))), allRows(rows), 0)
			})
		}
	}
}

// TestParquetHivePartitions writes by a column into hive directories, and
// reads them back with the column, skipping the directories a filter rules
// out.
func TestParquetHivePartitions(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(42, 400)
	f := arrowFrame(t, rows, []int{100, 150, 150}).Select("ID", "I", "F", "S", "K", "KI")
	// A key=value directory above the dataset is not a column of it.
	dir := filepath.Join(t.TempDir(), "env=prod", "sales")
	paths, err := f.ToParquet(ctx, dir, dataframe.ParquetWriteOptions{PartitionBy: []string{"KI"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if !strings.Contains(filepath.ToSlash(p), "/KI=") {
			t.Fatalf("%s is not in a hive directory", p)
		}
	}
	back := dataframe.ReadParquet(dir)
	if err := back.Err(); err != nil {
		t.Fatal(err)
	}
	checkSchema(t, "hive schema", back.Schema(), []string{"ID", "I", "F", "S", "K", "KI"},
		[]string{"int64", "int64", "float64", "utf8", "utf8", "int64"})
	all := back.NumPartitions()
	sel := back.Filter(dataframe.Col("KI").Eq(2)).Select("ID", "KI")
	if got := partitionsRead(t, sel); got*2 >= all {
		t.Errorf("a filter on the hive column reads %d of %d partitions:\n%s", got, all, sel.Explain())
	}
	var want [][]any
	for _, r := range rows {
		if r.KI != nil && *r.KI == 2 {
			want = append(want, []any{r.ID, int64(2)})
		}
	}
	got := tableRows(t, compute(t, ctx, sel.SortValues([]string{"ID"})))
	checkRows(t, got, want, 0)
	// Null keys go to the default directory and come back null.
	nulls := tableRows(t, compute(t, ctx, back.Filter(dataframe.Col("KI").IsNull()).Select("ID")))
	var wantNulls int
	for _, r := range rows {
		if r.KI == nil {
			wantNulls++
		}
	}
	if len(nulls) != wantNulls || wantNulls == 0 {
		t.Fatalf("%d rows with a null key, want %d", len(nulls), wantNulls)
	}
}

// partitionsRead is the number of partitions the reader at the bottom of
// f's optimized plan reads.
func partitionsRead(t *testing.T, f *dataframe.Frame) int {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(f.Explain()), "\n")
	last := lines[len(lines)-1]
	var n int
	if i := strings.LastIndex(last, "["); i >= 0 {
		for _, c := range last[i+1:] {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int(c-'0')
		}
	}
	return n
}

// TestParquetSkipsRowGroups reads a file of sorted IDs in row groups of 25
// rows, a partition each, and checks that a range filter reads only the
// row groups whose statistics overlap it.
func TestParquetSkipsRowGroups(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(43, 500)
	dir := t.TempDir()
	if _, err := arrowFrame(t, rows, []int{500}).ToParquet(ctx, dir, dataframe.ParquetWriteOptions{RowGroupRows: 25}); err != nil {
		t.Fatal(err)
	}
	back := dataframe.ReadParquet(dir, dataframe.ParquetOptions{PartitionSize: 1})
	if n := back.NumPartitions(); n != 20 {
		t.Fatalf("%d partitions, want 20 (one per row group)", n)
	}
	cases := []struct {
		pred  dataframe.Expr
		parts int
		keep  func(id int64) bool
	}{
		{dataframe.Col("ID").Ge(100).And(dataframe.Col("ID").Lt(150)), 2, func(id int64) bool { return id >= 100 && id < 150 }},
		{dataframe.Col("ID").Eq(260), 1, func(id int64) bool { return id == 260 }},
		{dataframe.Col("ID").IsIn(3, 499), 2, func(id int64) bool { return id == 3 || id == 499 }},
		{dataframe.Col("ID").Gt(1000).Or(dataframe.Col("ID").Le(10)), 1, func(id int64) bool { return id <= 10 }},
		{dataframe.Col("ID").Gt(1000), 1, func(id int64) bool { return false }},
	}
	for _, c := range cases {
		f := back.Filter(c.pred).Select("ID")
		if got := partitionsRead(t, f); got != c.parts {
			t.Errorf("%s: reads %d partitions, want %d:\n%s", c.pred, got, c.parts, f.Explain())
		}
		var want [][]any
		for _, r := range rows {
			if c.keep(r.ID) {
				want = append(want, []any{r.ID})
			}
		}
		checkRows(t, tableRows(t, compute(t, ctx, f)), want, 0)
	}
}

// TestReadBadFiles checks the errors for files that disagree or are broken.
func TestReadBadFiles(t *testing.T) {
	ctx := newClient(t)
	dir := t.TempDir()
	rows := genRows(44, 50)
	a := arrowFrame(t, rows, []int{50})
	if _, err := a.Select("ID", "F").ToParquet(ctx, filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Select("ID", "S").ToParquet(ctx, filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	mixed := dataframe.ReadParquet(filepath.Join(dir, "*", "*.parquet"))
	wantErr(t, "schemas differ", mixed.Err(), "columns differ", "a/part.0.parquet", "ID int64, F float64",
		"b/part.0.parquet", "ID int64, S string", "Union")
	union := dataframe.ReadParquet(filepath.Join(dir, "*", "*.parquet"), dataframe.ParquetOptions{Union: true})
	if err := union.Err(); err != nil {
		t.Fatal(err)
	}
	got := tableRows(t, compute(t, ctx, union))
	if len(got) != 100 || got[0][2] != nil || got[50][1] != nil {
		t.Fatalf("union: %d rows, first %v, 51st %v", len(got), got[0], got[50])
	}

	file := filepath.Join(dir, "a", "part.0.parquet")
	data, _ := os.ReadFile(file)
	for name, bad := range map[string][]byte{"truncated": data[:len(data)/2], "garbage": []byte(strings.Repeat("not parquet ", 100))} {
		p := filepath.Join(dir, name+".parquet")
		os.WriteFile(p, bad, 0o644)
		wantErr(t, name, dataframe.ReadParquet(p).Err(), p)
	}
	// A corrupt column chunk, found only when the partition is read.
	corrupt := slices.Clone(data)
	for i := 4; i < len(corrupt)/2; i++ {
		corrupt[i] ^= 0x5a
	}
	p := filepath.Join(dir, "corrupt.parquet")
	os.WriteFile(p, corrupt, 0o644)
	if f := dataframe.ReadParquet(p); f.Err() == nil {
		_, err := f.Compute(ctx)
		wantErr(t, "corrupt", err, p)
	}
	// A JSON key the first file's sample lacks fails a read of every
	// column, naming it, and is read when its type is given.
	jdir := filepath.Join(dir, "json")
	os.MkdirAll(jdir, 0o755)
	os.WriteFile(filepath.Join(jdir, "1.json"), []byte("{\"a\":1,\"b\":1}\n"), 0o644)
	os.WriteFile(filepath.Join(jdir, "2.json"), []byte("{\"a\":2,\"b\":2}\n{\"a\":3,\"b\":3,\"late\":\"x\"}\n"), 0o644)
	_, err := dataframe.ReadJSON(filepath.Join(jdir, "*")).Compute(ctx)
	wantErr(t, "unknown key", err, "2.json line 2", `key "late"`)
	got = tableRows(t, compute(t, ctx, dataframe.ReadJSON(filepath.Join(jdir, "*")).Select("a")))
	if len(got) != 3 {
		t.Fatalf("projection past an unknown key: %v", got)
	}
	withLate := dataframe.ReadJSON(filepath.Join(jdir, "*"), dataframe.JSONOptions{Types: map[string]string{"late": "string"}})
	got = tableRows(t, compute(t, ctx, withLate))
	if len(got) != 3 || got[2][2] != "x" {
		t.Fatalf("with the key's type given: %v", got)
	}

	// A file that changes after the frame was made fails its read.
	before := dataframe.ReadParquet(filepath.Join(dir, "b"))
	if _, err := a.Select("ID").ToParquet(ctx, filepath.Join(dir, "b"), dataframe.ParquetWriteOptions{Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(filepath.Join(dir, "b", "part.0.parquet"), time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	_, err = before.Compute(ctx)
	wantErr(t, "changed file", err, "b/part.0.parquet", "changed since the frame was made")

	_, err = a.ToParquet(ctx, "ftp://host/dir")
	wantErr(t, "unknown scheme", err, `unknown URL scheme "ftp"`, "s3://")
	wantErr(t, "no such column", dataframe.ReadParquet(file).Filter(dataframe.Col("nope").Gt(1)).Err(), "nope")
}

// TestOverwriteRemovesStaleParts writes three partitions, then one with
// Overwrite: a read of the directory must see the new rows only.
func TestOverwriteRemovesStaleParts(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(45, 90)
	f := arrowFrame(t, rows, []int{30, 30, 30})
	one := f.Repartition(1)
	for _, c := range []struct {
		name  string
		write func(f *dataframe.Frame, dir string, over bool) error
		read  func(dir string) *dataframe.Frame
	}{
		{"parquet", func(f *dataframe.Frame, dir string, over bool) error {
			_, err := f.ToParquet(ctx, dir, dataframe.ParquetWriteOptions{Overwrite: over})
			return err
		}, func(dir string) *dataframe.Frame { return dataframe.ReadParquet(dir) }},
		{"avro", func(f *dataframe.Frame, dir string, over bool) error {
			_, err := f.ToAvro(ctx, dir, dataframe.AvroWriteOptions{Overwrite: over})
			return err
		}, func(dir string) *dataframe.Frame { return dataframe.ReadAvro(dir) }},
		{"csv", func(f *dataframe.Frame, dir string, over bool) error {
			_, err := f.ToCSV(ctx, dir, dataframe.CSVWriteOptions{Overwrite: over})
			return err
		}, func(dir string) *dataframe.Frame {
			return dataframe.ReadCSV(dir, dataframe.CSVOptions{Types: csvTypes})
		}},
	} {
		dir := filepath.Join(t.TempDir(), c.name)
		if err := c.write(f, dir, false); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "notes.txt.keep"), []byte("not ours"), 0o644)
		if err := c.write(one, dir, true); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := os.Remove(filepath.Join(dir, "notes.txt.keep")); err != nil {
			t.Fatalf("%s: a file the write did not make is gone: %v", c.name, err)
		}
		checkRows(t, tableRows(t, compute(t, ctx, c.read(dir))), allRows(rows), 0)
	}
}

// TestManyPartsReadBackInOrder writes twelve partitions (part.10 sorts
// before part.2 as text) and reads them back in partition order.
func TestManyPartsReadBackInOrder(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(46, 240)
	sizes := make([]int, 12)
	for i := range sizes {
		sizes[i] = 20
	}
	dir := t.TempDir()
	if _, err := arrowFrame(t, rows, sizes).ToParquet(ctx, dir); err != nil {
		t.Fatal(err)
	}
	back := dataframe.ReadParquet(filepath.Join(dir, "*"))
	if n := back.NumPartitions(); n != 12 {
		t.Fatalf("%d partitions, want 12", n)
	}
	checkRows(t, tableRows(t, compute(t, ctx, back)), allRows(rows), 0)
}

// A reader given no partition size sizes its partitions by the memory one
// task of the default client's workers may use, where that is less than its
// default: text readers a tenth of it, Parquet a quarter (of decoded row
// groups), Avro an eighth (of file bytes); and the answer is the same.
func TestBlockSizeFollowsWorkerMemory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rows.csv")
	var b strings.Builder
	b.WriteString("k,v\n")
	var want int64
	for i := 0; b.Len() < 12<<20; i++ {
		fmt.Fprintf(&b, "key%d,%d\n", i%100, i)
		want += int64(i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same rows as Parquet (10 MiB decoded, in row groups of 64k rows
	// of about 0.6 MB) and as Avro (a file of each 1 MiB block of the CSV,
	// uncompressed: 12 MB in all).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := dusk.NewClient(ctx, dusk.Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	wctx := dusk.WithClient(ctx, c)
	pq, av := filepath.Join(dir, "pq"), filepath.Join(dir, "avro")
	if _, err := dataframe.ReadCSV(path).Repartition(1).ToParquet(wctx, pq, dataframe.ParquetWriteOptions{RowGroupRows: 1 << 16}); err != nil {
		t.Fatal(err)
	}
	if _, err := dataframe.ReadCSV(path, dataframe.CSVOptions{BlockSize: 1 << 20}).ToAvro(wctx, av, dataframe.AvroWriteOptions{Compression: "none"}); err != nil {
		t.Fatal(err)
	}
	c.Close()

	readers := []struct {
		name string
		read func() *dataframe.Frame
	}{
		{"csv", func() *dataframe.Frame { return dataframe.ReadCSV(path) }},
		{"parquet", func() *dataframe.Frame { return dataframe.ReadParquet(filepath.Join(pq, "*")) }},
		{"avro", func() *dataframe.Frame { return dataframe.ReadAvro(av) }},
	}
	for _, r := range readers {
		var parts []int
		for _, limit := range []int64{8 << 30, 16 << 20} {
			// The limit sizes the readers' partitions. The worker's memory
			// management is kept out of the way: a local worker's process
			// memory is this whole test process's (80 MiB and more on a
			// loaded machine whose garbage waits), which at 16 MiB would
			// pause it for good.
			far := dusk.Fractions{Target: 1000, Spill: 1000, Pause: 1000, Terminate: 1000}
			c, err := dusk.NewClient(ctx, dusk.Workers(1), dusk.ThreadsPerWorker(1), dusk.MemoryLimit(limit), dusk.MemoryFractions(far))
			if err != nil {
				t.Fatal(err)
			}
			f := r.read()
			parts = append(parts, f.NumPartitions())
			tab, err := f.Agg(dataframe.Sum("v")).Compute(dusk.WithClient(ctx, c))
			if err != nil {
				t.Fatal(err)
			}
			if got := tableRows(t, tab)[0][0].(int64); got != want {
				t.Errorf("%s, limit %d: sum %d, want %d", r.name, limit, got, want)
			}
			tab.Release()
			c.Close()
		}
		// At 8 GiB the defaults hold (one partition of the 10–12 MiB); at
		// 16 MiB partitions of 4 MiB, the least.
		if parts[0] != 1 || parts[1] < 3 {
			t.Errorf("%s: %v partitions at limits of 8 GiB and 16 MiB, want 1 and at least 3", r.name, parts)
		}
	}
}

// TestParquetTestsInReader filters Parquet files on columns the result
// does not keep, which the reader tests as it decodes them (dictionary
// values once each, plain pages as arrays), against a plain loop over the
// rows: with nulls, a test that keeps nulls, a hive column, and files of a
// union that lack the tested column.
func TestParquetTestsInReader(t *testing.T) {
	ctx := newClient(t)
	rows := genRows(46, 900)
	dir := t.TempDir()
	if _, err := arrowFrame(t, rows, []int{300, 300, 300}).ToParquet(ctx, filepath.Join(dir, "all"), dataframe.ParquetWriteOptions{PartitionBy: []string{"KI"}}); err != nil {
		t.Fatal(err)
	}
	all := dataframe.ReadParquet(filepath.Join(dir, "all"))
	is := func(p *int64, f func(int64) bool) bool { return p != nil && f(*p) }
	cases := []struct {
		name string
		pred dataframe.Expr
		keep func(r testRow) bool
	}{
		{"a dictionary of strings", dataframe.Col("K").IsIn("north", "west"), func(r testRow) bool {
			return r.K != nil && (*r.K == "north" || *r.K == "west")
		}},
		{"numbers, plain and dictionary", dataframe.Col("I").Gt(10).And(dataframe.Col("J").Le(0)), func(r testRow) bool {
			return is(r.I, func(v int64) bool { return v > 10 }) && is(r.J, func(v int64) bool { return v <= 0 })
		}},
		{"nulls kept", dataframe.Col("F").Lt(0).Or(dataframe.Col("F").IsNull()), func(r testRow) bool { return r.F == nil || *r.F < 0 }},
		{"a hive column and a kept one", dataframe.Col("KI").IsNull().Or(dataframe.Col("KI").Eq(1)).And(dataframe.Col("ID").Ge(100)), func(r testRow) bool {
			return (r.KI == nil || *r.KI == 1) && r.ID >= 100
		}},
		{"two columns together", dataframe.Col("I").Add(dataframe.Col("J")).Gt(0).And(dataframe.Col("T").NotNull()), func(r testRow) bool {
			return r.I != nil && r.J != nil && *r.I+*r.J > 0 && r.T != nil
		}},
	}
	for _, c := range cases {
		f := all.Filter(c.pred).Select("ID")
		var want [][]any
		for _, r := range rows {
			if c.keep(r) {
				want = append(want, []any{r.ID})
			}
		}
		if len(want) == 0 || len(want) == len(rows) {
			t.Fatalf("%s: %d of %d rows pass: no test", c.name, len(want), len(rows))
		}
		checkRows(t, tableRows(t, compute(t, ctx, f.SortValues([]string{"ID"}))), want, 0)
	}

	// A union of files with and without F: F is null where a file lacks it.
	a := arrowFrame(t, rows[:400], []int{400})
	if _, err := a.Select("ID", "F").ToParquet(ctx, filepath.Join(dir, "u", "a")); err != nil {
		t.Fatal(err)
	}
	if _, err := arrowFrame(t, rows[400:], []int{500}).Select("ID", "S").ToParquet(ctx, filepath.Join(dir, "u", "b")); err != nil {
		t.Fatal(err)
	}
	union := dataframe.ReadParquet(filepath.Join(dir, "u", "*", "*.parquet"), dataframe.ParquetOptions{Union: true})
	for _, c := range []struct {
		pred dataframe.Expr
		keep func(i int, r testRow) bool
	}{
		{dataframe.Col("F").Gt(0), func(i int, r testRow) bool { return i < 400 && r.F != nil && *r.F > 0 }},
		{dataframe.Col("F").IsNull(), func(i int, r testRow) bool { return i >= 400 || r.F == nil }},
	} {
		var want [][]any
		for i, r := range rows {
			if c.keep(i, r) {
				want = append(want, []any{r.ID})
			}
		}
		got := tableRows(t, compute(t, ctx, union.Filter(c.pred).Select("ID").SortValues([]string{"ID"})))
		checkRows(t, got, want, 0)
	}
}
