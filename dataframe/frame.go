package dataframe

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
)

// Frame is a lazy, partitioned dataframe. Methods return new frames and never
// change the one they are called on.
type Frame struct {
	plan plan.Node
	err  error
}

func failed(err error) *Frame { return &Frame{err: err} }

// frameOf is the frame of a plan, or of the error making it.
func frameOf(plan plan.Node, err error) *Frame {
	if err != nil {
		return failed(err)
	}
	return &Frame{plan: plan}
}

// Err returns the first error made in building the frame, or nil.
func (f *Frame) Err() error { return f.err }

// Schema is the frame's columns and their types.
func (f *Frame) Schema() *arrow.Schema {
	if f.err != nil {
		return arrow.NewSchema(nil, nil)
	}
	return f.plan.Schema()
}

// Columns lists the column names.
func (f *Frame) Columns() []string { return plan.Names(f.Schema()) }

// NumPartitions is how many partitions the frame has.
func (f *Frame) NumPartitions() int {
	if f.err != nil {
		return 0
	}
	return f.plan.Npartitions()
}

// Estimated is what the planner expects the frame to hold: the bytes in
// its files of the columns it reads and their rows (filters taken to keep
// every row), or its persisted partitions'; -1 where it cannot tell.
// Merge broadcasts a side estimated under its BroadcastBytes.
func (f *Frame) Estimated() (bytes, rows int64) {
	if f.err != nil {
		return -1, -1
	}
	s := plan.Estimate(plan.Optimize(f.plan))
	return s.Bytes, s.Rows
}

// NeverNull reports whether the statistics of the files the frame reads
// (Parquet's null counts) prove that column col holds no null.
func (f *Frame) NeverNull(col string) bool {
	return f.err == nil && plan.NeverNull(f.plan, col)
}

// Select keeps the named columns, in the order given.
func (f *Frame) Select(cols ...string) *Frame {
	if f.err != nil {
		return f
	}
	if len(cols) == 0 {
		return failed(fmt.Errorf("Select: no columns given"))
	}
	in := f.plan.Schema()
	fields := make([]arrow.Field, len(cols))
	seen := map[string]bool{}
	for i, c := range cols {
		fl, err := expr.Field(in, c)
		if err != nil {
			return failed(fmt.Errorf("Select: %w", err))
		}
		if seen[c] {
			return failed(fmt.Errorf("Select: column %q is named twice", c))
		}
		seen[c] = true
		fields[i] = fl
	}
	return &Frame{plan: plan.NewProject(f.plan, cols)}
}

// Filter keeps the rows where pred is true; rows where it is false or null
// go, as in SQL's WHERE.
func (f *Frame) Filter(pred Expr) *Frame {
	if f.err != nil {
		return f
	}
	k, err := pred.n.KindOf(f.plan.Schema())
	if err != nil {
		return failed(fmt.Errorf("Filter %s: %w", pred, err))
	}
	if k != kernel.KindBool {
		return failed(fmt.Errorf("Filter %s: the predicate is %s, not bool", pred, k))
	}
	return &Frame{plan: plan.NewFilter(f.plan, expr.Fold(pred.n))}
}

// TypeOf is the type e computes over f's columns, or why it computes none.
func (f *Frame) TypeOf(e Expr) (arrow.DataType, error) {
	if f.err != nil {
		return nil, f.err
	}
	return e.n.TypeOf(f.plan.Schema())
}

// WithColumn adds the column name computed by e, or replaces the column of
// that name in place.
func (f *Frame) WithColumn(name string, e Expr) *Frame {
	if f.err != nil {
		return f
	}
	if name == "" {
		return failed(fmt.Errorf("WithColumn: the column needs a name"))
	}
	in := f.plan.Schema()
	t, err := e.n.TypeOf(in)
	if err == nil && t.ID() == arrow.INTERVAL_MONTHS {
		err = fmt.Errorf("months are not a column's type: add them to a date or timestamp")
	}
	if err != nil {
		return failed(fmt.Errorf("WithColumn %s = %s: %w", name, e, err))
	}
	return &Frame{plan: plan.NewAssign(f.plan, name, expr.Fold(e.n))}
}

// executor finds where to run f.
func (f *Frame) executor(ctx context.Context) (collections.Executor, error) {
	if f.err != nil {
		return nil, f.err
	}
	return collections.ExecutorFrom(ctx)
}

// Compute runs the plan and returns the whole frame in memory. The table
// holds Arrow data: Release it when done to return memory at once.
func (f *Frame) Compute(ctx context.Context) (*Table, error) {
	ex, err := f.executor(ctx)
	if err != nil {
		return nil, err
	}
	run, release, err := plan.Adapt(ctx, ex, plan.Optimize(f.plan))
	if err != nil {
		return nil, err
	}
	defer release()
	l := plan.NewLowering()
	keys := l.Keys(run)
	values, err := ex.Compute(ctx, l.G, keys)
	runtime.KeepAlive(f) // a persisted frame's pin holds its keys until here
	if err != nil {
		return nil, err
	}
	return collect(f.plan.Schema(), values)
}

// collect concatenates computed partitions into a table, releasing them.
func collect(schema *arrow.Schema, values []any) (*Table, error) {
	recs := make([]arrow.Record, len(values))
	for i, v := range values {
		recs[i] = v.(arrow.Record)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	rec, err := kernel.ConcatRecords(schema, recs)
	if err != nil {
		return nil, fmt.Errorf("collect partitions: %w", err)
	}
	return &Table{rec: rec}, nil
}

// Persist runs the plan and keeps its partitions in the workers' memory; the
// frame it returns reads them from there. They are released when Release is
// called on that frame, or when it is no longer reachable.
func (f *Frame) Persist(ctx context.Context) (*Frame, error) {
	ex, err := f.executor(ctx)
	if err != nil {
		return nil, err
	}
	if p, ok := f.plan.(*plan.Persisted); ok {
		return &Frame{plan: p}, nil
	}
	run, release, err := plan.Adapt(ctx, ex, plan.Optimize(f.plan))
	if err != nil {
		return nil, err
	}
	defer release()
	p, err := plan.Persist(ctx, ex, run, f.plan.Schema(), f.plan.Name())
	runtime.KeepAlive(f)
	if err != nil {
		return nil, err
	}
	if !plan.MayShrink(run) { // the rows read are the rows held
		p.Rows = plan.Estimate(run).Rows
	}
	return &Frame{plan: p}, nil
}

// Release lets the cluster drop the partitions a persisted frame stands on;
// it does nothing for a frame that was not persisted. The frame must not be
// used afterwards.
func (f *Frame) Release() {
	if p, ok := f.plan.(*plan.Persisted); ok {
		p.Pin.Release()
	}
}

// Len counts the rows.
func (f *Frame) Len(ctx context.Context) (int64, error) {
	ex, err := f.executor(ctx)
	if err != nil {
		return 0, err
	}
	run, release, err := plan.Adapt(ctx, ex, plan.Optimize(plan.PruneTo(f.plan, nil)))
	if err != nil {
		return 0, err
	}
	defer release()
	n, err := plan.CountRows(ctx, ex, run)
	runtime.KeepAlive(f)
	return n, err
}

// Head returns the first n rows, computing only as many leading partitions
// as it needs: first one, then twice as many at each round. (Dask's head
// looks at the first partition only.)
func (f *Frame) Head(ctx context.Context, n int) (*Table, error) {
	ex, err := f.executor(ctx)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("Head(%d): the number of rows cannot be negative", n)
	}
	run, release, err := plan.Adapt(ctx, ex, plan.Optimize(f.plan))
	if err != nil {
		return nil, err
	}
	defer release()
	l := plan.NewLowering()
	parts := l.Keys(run)
	args, _ := json.Marshal(ops.HeadArgs{N: n})
	name := graph.Name("head", ops.OpHead, args, run.Name())
	var got []any
	rows := 0
	for next, batch := 0, 1; next < len(parts) && rows < n; batch *= 2 {
		var keys []graph.Key
		for i := next; i < min(next+batch, len(parts)); i++ {
			k := graph.Part(name, i)
			l.G.Add(&graph.Task{Key: k, Op: ops.OpHead, Args: args, Inputs: []graph.Key{parts[i]}})
			keys = append(keys, k)
		}
		next += len(keys)
		values, err := ex.Compute(ctx, l.G, keys)
		runtime.KeepAlive(f)
		if err != nil {
			releaseValues(got)
			return nil, err
		}
		for _, v := range values {
			rows += int(v.(arrow.Record).NumRows())
		}
		got = append(got, values...)
	}
	t, err := collect(f.plan.Schema(), got)
	if err != nil {
		return nil, err
	}
	if t.NumRows() > n {
		short := t.rec.NewSlice(0, int64(n))
		t.rec.Release()
		t.rec = short
	}
	return t, nil
}

func releaseValues(vs []any) {
	for _, v := range vs {
		if r, ok := v.(arrow.Record); ok {
			r.Release()
		}
	}
}
