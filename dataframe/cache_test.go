package dataframe_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/s3test"
)

var kvSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// datumCalls counts the partitions the "count-datum" function has run on:
// one per per-datum task executed.
var datumCalls atomic.Int64

func init() {
	dataframe.RegisterFunc("count-datum", func(rec arrow.Record) (arrow.Record, error) {
		datumCalls.Add(1)
		rec.Retain()
		return rec, nil
	})
}

// TestCacheRecomputesOnlyChangedDatums runs one pipeline four times over a
// directory of CSV files with a cache: unchanged, one file changed, one file
// added, and the pipeline changed. It counts the per-datum tasks executed
// and checks each answer against sums computed here.
func TestCacheRecomputesOnlyChangedDatums(t *testing.T) {
	for _, where := range []string{"local", "mem", "s3"} {
		t.Run(where, func(t *testing.T) {
			dir := t.TempDir()
			cacheDir := "file://" + filepath.ToSlash(filepath.Join(dir, "cache"))
			switch where {
			case "mem":
				cacheDir = "mem://cache-test/c"
			case "s3":
				cacheDir = s3test.Start(t, "cache-test") + "/c"
			}
			data := filepath.Join(dir, "data")
			os.MkdirAll(data, 0o755)
			write := func(name string, rows int, mul int64) {
				var b strings.Builder
				b.WriteString("k,v\n")
				for i := 0; i < rows; i++ {
					fmt.Fprintf(&b, "k%d,%d\n", i%3, int64(i)*mul)
				}
				p := filepath.Join(data, name)
				if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				// A distinct modification time even on coarse clocks.
				mt := time.Now().Add(time.Duration(datumCalls.Load()+mul) * time.Second)
				os.Chtimes(p, mt, mt)
			}
			sums := map[string]map[string]int64{}
			track := func(name string, rows int, mul int64) {
				write(name, rows, mul)
				sums[name] = map[string]int64{}
				for i := 0; i < rows; i++ {
					sums[name][fmt.Sprintf("k%d", i%3)] += int64(i) * mul
				}
			}
			for i, name := range []string{"a.csv", "b.csv", "c.csv", "d.csv"} {
				track(name, 100+i, 1)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			c, err := dusk.NewClient(ctx, dusk.Workers(2), dusk.WithCache(cacheDir))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx = dusk.WithClient(ctx, c)

			run := func(step string, scale int64, wantCalls int64) {
				t.Helper()
				before := datumCalls.Load()
				f := dataframe.ReadCSV(filepath.Join(data, "*")).
					MapPartitions("count-datum", kvSchema).
					WithColumn("v", dataframe.Col("v").Mul(dataframe.Lit(scale))).
					GroupBy("k").Agg(dataframe.Sum("v"))
				tab, err := f.Compute(ctx)
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				defer tab.Release()
				want := map[string]int64{}
				for _, s := range sums {
					for k, v := range s {
						want[k] += v * scale
					}
				}
				got := map[string]int64{}
				for _, row := range tableRows(t, tab) {
					got[row[0].(string)] = row[1].(int64)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s: sums %v, want %v", step, got, want)
				}
				if calls := datumCalls.Load() - before; calls != wantCalls {
					t.Fatalf("%s: %d per-datum tasks ran, want %d", step, calls, wantCalls)
				}
			}
			run("first run", 1, 4)
			run("unchanged", 1, 0)
			track("b.csv", 50, 7)
			run("one file changed", 1, 1)
			track("e.csv", 30, 3)
			run("one file added", 1, 1)
			run("pipeline changed", 2, 5)
			run("pipeline changed, again", 2, 0)
			// Writes are side effects: they run every time, on cached reads.
			out := filepath.Join(dir, "out")
			frame := dataframe.ReadCSV(filepath.Join(data, "*")).MapPartitions("count-datum", kvSchema)
			for i := 0; i < 2; i++ {
				before := datumCalls.Load()
				os.RemoveAll(out)
				paths, err := frame.ToParquet(ctx, out)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(paths[0]); err != nil || len(paths) != 5 {
					t.Fatalf("write %d: %v, %v", i, paths, err)
				}
				if calls := datumCalls.Load() - before; i == 1 && calls != 0 {
					t.Fatalf("the second write ran %d per-datum tasks, want 0 (cached)", calls)
				}
			}
			if st := c.CacheStats(); st.Hits == 0 || st.Stores == 0 {
				t.Fatalf("cache stats %+v", st)
			}
		})
	}
}

// TestCacheAddingDatums adds datums one at a time, 1 to 20, under a
// two-level glob and a one-level one, and checks that each run computes and
// stores exactly the new datum and loads every other, whatever the count of
// datums does to the tree reduction after the read (a lone last group of
// one input at 9 and 17 datums), for a groupby, a filter and a join.
func TestCacheAddingDatums(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, glob := range []string{"*/*", "*"} {
		for _, pipeline := range []string{"groupby", "filter", "join"} {
			t.Run(strings.ReplaceAll(glob, "*", "x")+"/"+pipeline, func(t *testing.T) {
				dir := t.TempDir()
				lookup := filepath.Join(dir, "lookup.csv")
				os.WriteFile(lookup, []byte("k,name\nk0,zero\nk1,one\nk2,two\n"), 0o644)
				c, err := dusk.NewClient(ctx, dusk.Workers(2), dusk.WithCache(filepath.Join(dir, "cache")))
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				ctx := dusk.WithClient(ctx, c)
				want := map[string]int64{}
				for n := 1; n <= 20; n++ {
					name := filepath.Join(dir, "data", fmt.Sprintf("d%02d.csv", n))
					if glob == "*/*" {
						name = filepath.Join(dir, "data", fmt.Sprintf("city%02d", n), "part.csv")
					}
					os.MkdirAll(filepath.Dir(name), 0o755)
					var b strings.Builder
					b.WriteString("k,v\n")
					for i := 0; i < 10+n; i++ {
						v := int64(n*1000 + i)
						fmt.Fprintf(&b, "k%d,%d\n", i%3, v)
						if pipeline != "filter" || v%2 == 0 {
							want[fmt.Sprintf("k%d", i%3)] += v
						}
					}
					if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
						t.Fatal(err)
					}
					f := dataframe.ReadCSV(filepath.Join(dir, "data", glob)).MapPartitions("count-datum", kvSchema)
					switch pipeline {
					case "filter":
						f = f.Filter(dataframe.Col("v").Mod(dataframe.Lit(int64(2))).Eq(dataframe.Lit(int64(0))))
					case "join":
						f = f.Join(dataframe.ReadCSV(lookup), dataframe.Inner, "k").Select("name", "v").
							WithColumn("k", dataframe.Col("name"))
					}
					before, calls := c.CacheStats(), datumCalls.Load()
					tab, err := f.GroupBy("k").Agg(dataframe.Sum("v")).Compute(ctx)
					if err != nil {
						t.Fatalf("%d datums: %v", n, err)
					}
					got := map[string]int64{}
					for _, row := range tableRows(t, tab) {
						k := row[0].(string)
						if pipeline == "join" {
							k = "k" + map[string]string{"zero": "0", "one": "1", "two": "2"}[k]
						}
						got[k] = row[1].(int64)
					}
					tab.Release()
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("%d datums: sums %v, want %v", n, got, want)
					}
					st := c.CacheStats()
					stores, hits := st.Stores-before.Stores, st.Hits-before.Hits
					// The join's lookup table is a datum too: stored at first,
					// then loaded by each computation that reads it (an
					// aggregation may settle its strategy in one of its own).
					wantStores, lookups := 1, 0
					if pipeline == "join" {
						lookups = hits - (n - 1)
						if n == 1 {
							wantStores++
						} else if lookups < 1 || lookups > 2 {
							t.Fatalf("%d datums: %d results loaded, want %d and the lookup table's", n, hits, n-1)
						}
					}
					if ran := datumCalls.Load() - calls; ran != 1 || stores != wantStores || hits-lookups != n-1 {
						t.Fatalf("%d datums: %d per-datum tasks ran, %d results stored, %d loaded; want 1, %d, %d",
							n, ran, stores, hits, wantStores, n-1)
					}
				}
			})
		}
	}
}
