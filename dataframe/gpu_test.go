package dataframe_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/collections/testcluster"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/kernel"
)

// gpuRecord makes rows without nulls, as the GPU path takes them: an
// int64 key k, a dictionary key d, float64 x and int64 y.
func gpuRecord(seed, n int) arrow.Record {
	k, x, y, codes := make([]int64, n), make([]float64, n), make([]int64, n), make([]int32, n)
	offsets, data := []int32{0}, []byte(nil)
	for i := range 30 {
		data = append(data, "name"+strconv.Itoa(i)...)
		offsets = append(offsets, int32(len(data)))
	}
	for i := range n {
		v := seed*n + i
		k[i] = int64(v*7919%50) - 20
		codes[i] = int32(v * 104729 % 30)
		x[i] = float64(v%997)/8 - 40
		y[i] = int64(v*31%1001) - 500
	}
	dict := kernel.NewString(offsets, data, nil)
	defer dict.Release()
	cols := []arrow.Array{kernel.NewInt64(k, nil), kernel.NewDict(codes, dict, nil), kernel.NewFloat64(x, nil), kernel.NewInt64(y, nil)}
	fields := make([]arrow.Field, len(cols))
	for i, name := range []string{"k", "d", "x", "y"} {
		fields[i] = arrow.Field{Name: name, Type: cols[i].DataType(), Nullable: true}
	}
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// sortedRows formats a table's rows, floats to 12 digits, sorted.
func sortedRows(tb *dataframe.Table) []string {
	rec := tb.Record()
	rows := make([]string, rec.NumRows())
	for c, col := range rec.Columns() {
		for i := range rows {
			v := col.ValueStr(i)
			if f, ok := col.(*array.Float64); ok {
				v = strconv.FormatFloat(f.Value(i), 'g', 12, 64)
			}
			rows[i] += fmt.Sprintf("%s=%s ", rec.ColumnName(c), v)
		}
	}
	slices.Sort(rows)
	return rows
}

// TestGroupByGPUPath runs grouped aggregations through the whole GPU
// path — dusk.WithGPU marking the tasks, the scheduler placing them on
// workers that offer a GPU, the worker telling the operation, the Arrow
// columns going to the kernels and back — with gpu.Reference standing in
// for the device, and checks the answers against the CPU path's.
func TestGroupByGPUPath(t *testing.T) {
	recs := []arrow.Record{gpuRecord(0, 1000), gpuRecord(1, 1), gpuRecord(2, 2500)}
	t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	run := func(ctx context.Context, key string, aggs []dataframe.Agg) []string {
		tb, err := dataframe.FromArrow(recs...).GroupBy(key).Agg(aggs...).Compute(ctx)
		if err != nil {
			t.Fatalf("group by %s: %v", key, err)
		}
		defer tb.Release()
		return sortedRows(tb)
	}
	cpu := newClient(t)
	onGPU, calls := testcluster.LocalGPU(t)
	all := []dataframe.Agg{dataframe.Sum("x"), dataframe.Sum("y"), dataframe.Mean("x"), dataframe.Mean("y"),
		dataframe.Count("x"), dataframe.Size(), dataframe.Min("x"), dataframe.Max("x"), dataframe.Min("y"), dataframe.Max("y")}
	for _, tc := range []struct {
		name string
		key  string
		aggs []dataframe.Agg
		gpu  bool // the kernels run; else one is missing and the CPU's run
	}{
		{"int key", "k", all, true},
		{"dictionary key", "d", all, true},
		{"count only", "k", []dataframe.Agg{dataframe.Size()}, true},
		{"std falls back", "d", []dataframe.Agg{dataframe.Sum("x"), dataframe.Std("x")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := calls.Load()
			want := run(cpu, tc.key, tc.aggs)
			if calls.Load() != before {
				t.Fatalf("the CPU client's tasks took the GPU path")
			}
			got := run(onGPU, tc.key, tc.aggs)
			if ran := calls.Load() > before; ran != tc.gpu {
				t.Errorf("kernels ran: %v, want %v", ran, tc.gpu)
			}
			if !slices.Equal(got, want) {
				t.Errorf("GPU path:\n%v\nCPU path:\n%v", got[:min(3, len(got))], want[:min(3, len(want))])
			}
		})
	}
}

// TestExprGPUPath runs filters and computed columns through the GPU path
// (gpu.Reference standing in for the device) and checks them against the
// CPU path; operands without a kernel (mixed types, int division, two
// literals) go back to the CPU.
func TestExprGPUPath(t *testing.T) {
	recs := []arrow.Record{gpuRecord(3, 700), gpuRecord(4, 0), gpuRecord(5, 1300)}
	t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	cpu := newClient(t)
	onGPU, calls := testcluster.LocalGPU(t)
	col := dataframe.Col
	for _, tc := range []struct {
		name  string
		apply func(*dataframe.Frame) *dataframe.Frame
		gpu   bool // the kernels run; else the operands have none
	}{
		// Filters on a computed column: the optimizer cannot push them
		// into the source's read, which runs on the CPU.
		{"float filter", func(f *dataframe.Frame) *dataframe.Frame {
			return f.WithColumn("z", col("x").Mul(2.0)).Filter(col("z").Gt(3.5))
		}, true},
		{"int filter", func(f *dataframe.Frame) *dataframe.Frame {
			return f.WithColumn("z", col("y").Add(col("k"))).Filter(col("z").Le(10).And(col("z").Ne(4)))
		}, true},
		{"float columns", func(f *dataframe.Frame) *dataframe.Frame {
			return f.WithColumn("z", col("x").Mul(col("x")).Sub(col("x").Div(4.0)))
		}, true},
		{"int columns", func(f *dataframe.Frame) *dataframe.Frame {
			return f.WithColumn("z", col("y").Add(3).Mul(col("k")))
		}, true},
		{"mixed types", func(f *dataframe.Frame) *dataframe.Frame {
			return f.WithColumn("z", col("y").Add(col("x"))).WithColumn("w", col("y").Div(7)).Filter(col("x").Lt(col("y")))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := func(ctx context.Context) []string {
				tb, err := tc.apply(dataframe.FromArrow(recs...)).Compute(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer tb.Release()
				return sortedRows(tb)
			}
			before := calls.Load()
			want := rows(cpu)
			got := rows(onGPU)
			if ran := calls.Load() > before; ran != tc.gpu {
				t.Errorf("kernels ran: %v, want %v", ran, tc.gpu)
			}
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("GPU path (%d rows):\n%v\nCPU path (%d rows):\n%v", len(got), got[:min(3, len(got))], len(want), want[:min(3, len(want))])
			}
		})
	}
}
