package dataframe_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/io/parquet"
)

// keyFiles writes keys (nil: null) of type dt with a value column val, the
// row's number, in files of perFile rows, and returns their glob.
func keyFiles(t *testing.T, dir, name, val string, dt arrow.DataType, keys []*int64, perFile int) string {
	t.Helper()
	for f := 0; f*perFile < len(keys); f++ {
		part := keys[f*perFile : min((f+1)*perFile, len(keys))]
		kb, vb := array.NewBuilder(memory.DefaultAllocator, dt), array.NewInt64Builder(memory.DefaultAllocator)
		for i, k := range part {
			switch b := kb.(type) {
			case *array.Int32Builder:
				if k == nil {
					b.AppendNull()
				} else {
					b.Append(int32(*k))
				}
			case *array.Int64Builder:
				if k == nil {
					b.AppendNull()
				} else {
					b.Append(*k)
				}
			}
			vb.Append(int64(f*perFile + i))
		}
		schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: dt, Nullable: true}, {Name: val, Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
		rec := array.NewRecord(schema, []arrow.Array{kb.NewArray(), vb.NewArray()}, int64(len(part)))
		out, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%02d.parquet", name, f)))
		if err != nil {
			t.Fatal(err)
		}
		if err := parquet.Write(out, schema, []arrow.Record{rec}, parquet.WriteOptions{RowGroupRows: 500}); err != nil {
			t.Fatal(err)
		}
		out.Close()
		rec.Release()
	}
	return filepath.Join(dir, name+"-*.parquet")
}

// randomKeys draws n keys below max in no order, a null one in nullEvery
// (0: none).
func randomKeys(r *rand.Rand, n, max, nullEvery int) []*int64 {
	keys := make([]*int64, n)
	for i := range keys {
		if nullEvery > 0 && r.IntN(nullEvery) == 0 {
			continue
		}
		v := int64(r.IntN(max))
		keys[i] = &v
	}
	return keys
}

// TestJoinScansWithKeyFilter joins a large side read from Parquet files
// with a small one broadcast: each task reads its partition of the large
// side with the small side's filter of its keys as one of the reader's
// filters, and the rows are what a nested loop over them gives, for inner
// joins with the small side on either hand and semi joins, null keys
// meeting each other, and a small side that holds most keys (whose filter
// the tasks stop asking).
func TestJoinScansWithKeyFilter(t *testing.T) {
	ctx := newClient(t)
	r := rand.New(rand.NewPCG(11, 12))
	dir := t.TempDir()
	bigKeys, denseKeys := randomKeys(r, 12000, 50000, 50), randomKeys(r, 12000, 1200, 0)
	bigFiles := keyFiles(t, dir, "big", "v", arrow.PrimitiveTypes.Int32, bigKeys, 2000)
	denseFiles := keyFiles(t, dir, "dense", "v", arrow.PrimitiveTypes.Int32, denseKeys, 2000)
	distinct := make([]*int64, 1000) // most of denseKeys' values
	for i := range distinct {
		v := int64(i)
		distinct[i] = &v
	}
	key := func(k *int64) string {
		if k == nil {
			return "null"
		}
		return fmt.Sprint(*k)
	}
	for _, c := range []struct {
		name      string
		how       dataframe.How
		smallLeft bool
		small     []*int64
		dense     bool // the large side's keys are few, most of them in small
	}{
		{"inner", dataframe.Inner, false, randomKeys(r, 300, 50000, 0), false},
		{"inner/nulls", dataframe.Inner, false, randomKeys(r, 300, 50000, 30), false},
		{"semi", dataframe.Semi, false, randomKeys(r, 300, 50000, 30), false},
		{"inner/small-left", dataframe.Inner, true, randomKeys(r, 300, 50000, 30), false},
		{"inner/most-keys", dataframe.Inner, false, distinct, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			small := dataframe.ReadParquet(keyFiles(t, t.TempDir(), "small", "w", arrow.PrimitiveTypes.Int32, c.small, len(c.small)), dataframe.ParquetOptions{})
			big, bigKeys := dataframe.ReadParquet(bigFiles, dataframe.ParquetOptions{PartitionSize: 1}), bigKeys
			if c.dense {
				big, bigKeys = dataframe.ReadParquet(denseFiles, dataframe.ParquetOptions{PartitionSize: 1}), denseKeys
			}
			left, right, lkeys, rkeys := big, small, bigKeys, c.small
			if c.smallLeft {
				left, right, lkeys, rkeys = small, big, c.small, bigKeys
			}
			f := left.Join(right, c.how, "k")
			if plan := f.Explain(); !strings.Contains(plan, "read with a filter of the broadcast keys") {
				t.Fatalf("no partition read with a filter:\n%s", plan)
			}
			byKey := map[string][]int{}
			for j, k := range rkeys {
				byKey[key(k)] = append(byKey[key(k)], j)
			}
			var want []string
			for i, k := range lkeys {
				for _, j := range byKey[key(k)] {
					if c.how == dataframe.Inner {
						want = append(want, fmt.Sprintf("%s %d %d", key(k), i, j))
					}
				}
				if c.how == dataframe.Semi && len(byKey[key(k)]) > 0 {
					want = append(want, fmt.Sprintf("%s %d", key(k), i))
				}
			}
			tb := compute(t, ctx, f)
			defer tb.Release()
			var got []string
			for _, row := range tableRows(t, tb) {
				var s []string
				for _, v := range row {
					if v == nil {
						s = append(s, "null")
					} else {
						s = append(s, fmt.Sprint(v))
					}
				}
				got = append(got, strings.Join(s, " "))
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%d rows, want %d; first of each: %v / %v", len(got), len(want), got[:min(3, len(got))], want[:min(3, len(want))])
			}
		})
	}
}
