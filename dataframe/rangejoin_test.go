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

// keyFiles writes keys (nil: null) of type dt (int32 or int64) with a
// value column val, the row's number, in files of perFile rows and row
// groups of perGroup, and returns their glob.
func keyFiles(t *testing.T, dir, name, val string, dt arrow.DataType, keys []*int64, perFile, perGroup int) string {
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
		if err := parquet.Write(out, schema, []arrow.Record{rec}, parquet.WriteOptions{RowGroupRows: int64(perGroup)}); err != nil {
			t.Fatal(err)
		}
		out.Close()
		rec.Release()
	}
	return filepath.Join(dir, name+"-*.parquet")
}

// keyString prints a key, nil as null.
func keyString(k *int64) string {
	if k == nil {
		return "null"
	}
	return fmt.Sprint(*k)
}

// sameRows fails t unless tb's rows, each its values joined by spaces
// (null for none), are want in some order.
func sameRows(t *testing.T, tb *dataframe.Table, want []string) {
	t.Helper()
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
}

// ascending draws n keys in ascending order, with repeats and gaps, and
// nulls at rows in [from, to), one in four.
func ascending(r *rand.Rand, n, from, to int) []*int64 {
	keys := make([]*int64, n)
	k := int64(r.IntN(5))
	for i := range keys {
		k += int64(r.IntN(3)) // 0: a repeat
		if i >= from && i < to && r.IntN(4) == 0 {
			continue
		}
		v := k
		keys[i] = &v
	}
	return keys
}

// TestJoinByKeyRanges joins two files written in the order of their key
// (lines and orders, events by time): each left partition reads the right
// rows of its key range in its own task, and every kind of join that keeps
// the left rows gives what a nested loop over the rows gives, null keys
// meeting each other, as Merge's do.
func TestJoinByKeyRanges(t *testing.T) {
	defer dataframe.SetMinRangeJoin(0)()
	ctx := newClient(t)
	r := rand.New(rand.NewPCG(7, 8))
	dir := t.TempDir()
	lkeys, rkeys := ascending(r, 6000, 2100, 2200), ascending(r, 4000, 1000, 1100)
	left := dataframe.ReadParquet(keyFiles(t, dir, "left", "v", arrow.PrimitiveTypes.Int64, lkeys, 1000, 1000), dataframe.ParquetOptions{PartitionSize: 1})
	rightFiles := keyFiles(t, dir, "right", "w", arrow.PrimitiveTypes.Int64, rkeys, 2000, 100)
	byKey := map[string][]int{} // the right rows of each key
	for j, rk := range rkeys {
		byKey[keyString(rk)] = append(byKey[keyString(rk)], j)
	}
	for _, c := range []struct {
		name string
		how  dataframe.How
		size int64 // of the right side's partitions
	}{
		{"inner", dataframe.Inner, 16 << 10}, {"left", dataframe.Left, 16 << 10}, {"semi", dataframe.Semi, 16 << 10},
		{"anti", dataframe.Anti, 16 << 10}, {"inner/right-in-one-partition", dataframe.Inner, 1 << 30},
	} {
		how := c.how
		t.Run(c.name, func(t *testing.T) {
			right := dataframe.ReadParquet(rightFiles, dataframe.ParquetOptions{PartitionSize: c.size})
			f := left.Join(right, how, "k")
			if plan := f.Explain(); !strings.Contains(plan, "by key ranges") {
				t.Fatalf("not joined by key ranges:\n%s", plan)
			}
			var want []string
			for i, lk := range lkeys {
				matched := len(byKey[keyString(lk)]) > 0
				for _, j := range byKey[keyString(lk)] {
					if how == dataframe.Inner || how == dataframe.Left {
						want = append(want, fmt.Sprintf("%s %d %d", keyString(lk), i, j))
					}
				}
				switch {
				case how == dataframe.Left && !matched:
					want = append(want, fmt.Sprintf("%s %d null", keyString(lk), i))
				case how == dataframe.Semi && matched, how == dataframe.Anti && !matched:
					want = append(want, fmt.Sprintf("%s %d", keyString(lk), i))
				}
			}
			tb := compute(t, ctx, f)
			defer tb.Release()
			sameRows(t, tb, want)
		})
	}
	// An inner join whose left side is the one read by ranges is turned
	// around: the right rows, in one partition, met by the left file's
	// partitions, with the columns in the order asked.
	t.Run("inner/turned-around", func(t *testing.T) {
		right := dataframe.ReadParquet(rightFiles, dataframe.ParquetOptions{PartitionSize: 1 << 30})
		f := right.Join(left, dataframe.Inner, "k")
		if plan := f.Explain(); !strings.Contains(plan, "by key ranges") {
			t.Fatalf("not joined by key ranges:\n%s", plan)
		}
		var want []string
		for i, lk := range lkeys {
			for _, j := range byKey[keyString(lk)] {
				want = append(want, fmt.Sprintf("%s %d %d", keyString(lk), j, i))
			}
		}
		tb := compute(t, ctx, f)
		defer tb.Release()
		if cols := f.Columns(); !slices.Equal(cols, []string{"k", "w", "v"}) {
			t.Fatalf("columns %v, want k, w, v", cols)
		}
		sameRows(t, tb, want)
	})
}
