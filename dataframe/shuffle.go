package dataframe

import (
	"context"
	"fmt"
	"runtime"

	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/graph"
)

// Shuffle moves rows so that equal values of cols share a partition, among
// n partitions (the frame's count if n < 1), by a peer-to-peer shuffle.
// Joins and groupings on those columns then need no shuffle of their own.
func (f *Frame) Shuffle(n int, cols ...string) *Frame {
	if f.err != nil {
		return f
	}
	if len(cols) == 0 {
		return failed(fmt.Errorf("Shuffle: no columns given"))
	}
	for _, c := range cols {
		if _, err := expr.Field(f.plan.Schema(), c); err != nil {
			return failed(fmt.Errorf("Shuffle: %w", err))
		}
	}
	if n < 1 {
		n = f.plan.Npartitions()
	}
	return &Frame{plan: plan.NewHashShuffle(f.plan, cols, n)}
}

// DropDuplicates keeps the first row of each distinct combination of the
// subset columns (all columns if none given), as pandas: partitions drop
// their own duplicates, then the rest are shuffled by the subset's hash
// and dropped where they meet.
func (f *Frame) DropDuplicates(subset ...string) *Frame {
	if f.err != nil {
		return f
	}
	for _, c := range subset {
		if _, err := expr.Field(f.plan.Schema(), c); err != nil {
			return failed(fmt.Errorf("DropDuplicates: %w", err))
		}
	}
	return &Frame{plan: plan.NewDedup(f.plan, subset)}
}

// Unique is the distinct values of col, nulls counting as one, as a
// one-column frame.
func (f *Frame) Unique(col string) *Frame {
	if f.err != nil {
		return f
	}
	return f.Select(col).DropDuplicates()
}

// Repartition makes n partitions of about equal row counts without a
// shuffle: neighbours are concatenated, or partitions sliced.
func (f *Frame) Repartition(n int) *Frame {
	if f.err != nil {
		return f
	}
	if n < 1 {
		return failed(fmt.Errorf("Repartition(%d): the partition count must be at least 1", n))
	}
	have := f.plan.Npartitions()
	var outs [][]exchange.Slice
	if n <= have {
		for j := range n {
			var o []exchange.Slice
			for i := j * have / n; i < (j+1)*have/n; i++ {
				o = append(o, exchange.Slice{Part: i, Of: 1})
			}
			outs = append(outs, o)
		}
	} else {
		for i := range have {
			k := (i+1)*n/have - i*n/have
			for s := range k {
				outs = append(outs, []exchange.Slice{{Part: i, K: s, Of: k}})
			}
		}
	}
	return &Frame{plan: plan.NewRepartition(f.plan, outs)}
}

// RepartitionBySize makes partitions of about size bytes in memory: it
// computes the frame's partition sizes (persist the frame first so that it
// is not computed twice), then slices the large ones and concatenates runs
// of small neighbours.
func (f *Frame) RepartitionBySize(ctx context.Context, size int64) (*Frame, error) {
	ex, err := f.executor(ctx)
	if err != nil {
		return nil, err
	}
	if size <= 0 {
		return nil, fmt.Errorf("RepartitionBySize(%d): the size must be positive", size)
	}
	optimized, release, err := plan.Adapt(ctx, ex, plan.Optimize(f.plan))
	if err != nil {
		return nil, err
	}
	defer release()
	l := plan.NewLowering()
	sizes := l.MapParts(graph.Name("nbytes", exchange.OpNbytes, nil, optimized.Name()), exchange.OpNbytes, nil, l.Keys(optimized))
	values, err := ex.Compute(ctx, l.G, sizes)
	runtime.KeepAlive(f)
	if err != nil {
		return nil, err
	}
	var outs [][]exchange.Slice
	var run []exchange.Slice
	var runBytes int64
	for i, v := range values {
		b := v.(int64)
		if k := int((b + size - 1) / size); k > 1 {
			if run != nil {
				outs, run, runBytes = append(outs, run), nil, 0
			}
			for s := range k {
				outs = append(outs, []exchange.Slice{{Part: i, K: s, Of: k}})
			}
			continue
		}
		if run != nil && runBytes+b > size {
			outs, run, runBytes = append(outs, run), nil, 0
		}
		run, runBytes = append(run, exchange.Slice{Part: i, Of: 1}), runBytes+b
	}
	if run != nil || len(outs) == 0 {
		outs = append(outs, run)
	}
	return &Frame{plan: plan.NewRepartition(f.plan, outs)}, nil
}
