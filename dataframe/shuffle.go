package dataframe

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
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
		if _, err := expr.Field(f.plan.schema(), c); err != nil {
			return failed(fmt.Errorf("Shuffle: %w", err))
		}
	}
	if n < 1 {
		n = f.plan.npartitions()
	}
	return &Frame{plan: newHashShuffle(f.plan, cols, n)}
}

// hashShuffle is a shuffle by a hash of columns.
type hashShuffle struct {
	child node
	cols  []string
	n     int
	tok   string
}

func newHashShuffle(child node, cols []string, n int) *hashShuffle {
	return &hashShuffle{child: child, cols: cols, n: n, tok: token("shuffle", hashSplitArgs{Keys: cols, N: n}, child)}
}

func (s *hashShuffle) schema() *arrow.Schema      { return s.child.schema() }
func (s *hashShuffle) npartitions() int           { return s.n }
func (s *hashShuffle) name() string               { return s.tok }
func (s *hashShuffle) children() []node           { return []node{s.child} }
func (s *hashShuffle) with(c []node) node         { return newHashShuffle(c[0], s.cols, s.n) }
func (s *hashShuffle) partitioning() partitioning { return partitioning{hash: s.cols, n: s.n} }
func (s *hashShuffle) explain() string {
	return fmt.Sprintf("shuffle hash(%s)", strings.Join(s.cols, ", "))
}

func (s *hashShuffle) lower(l *lowering) []graph.Key {
	return hashShuffled(l, s.tok, s.child, s.cols, s.n, opConcat, mustJSON(concatArgs{Out: specOf(s.schema())}))
}

// hashShuffled shuffles child's partitions by a hash of cols into n, each
// assembled by unpackOp; none when child is partitioned so already, where
// unpackOp runs on each partition as it is.
func hashShuffled(l *lowering, name string, child node, cols []string, n int, unpackOp string, unpackArgs []byte) []graph.Key {
	parts := l.keys(child)
	if child.partitioning().hashedBy(cols, n) {
		return l.mapParts(name, unpackOp, unpackArgs, parts)
	}
	return l.shuffle(name, n, []shuffleSide{copiedHashSide(parts, cols, n)}, unpackOp, unpackArgs)
}

// copiedHashSide is a shuffle side that splits parts by a hash of keys into
// n, copying the pieces out (hashSplitArgs.Copy).
func copiedHashSide(parts []graph.Key, keys []string, n int) shuffleSide {
	return shuffleSide{parts: parts, op: opHashSplit, args: mustJSON(hashSplitArgs{Keys: keys, N: n, Copy: true})}
}

type hashSplitArgs struct {
	Keys []string `json:"keys"`
	N    int      `json:"n"`
	// Copy copies the pieces out as the partition is split, into many
	// outputs (see scatterPieces): pieces an unpack reads whole (an
	// aggregation's states, rows to concatenate or deduplicate), where a
	// join gathers its output straight from row pieces.
	Copy bool `json:"copy,omitempty"`
	// CopyKeys copies only the key columns out at the split into many
	// outputs (see scatterPieces), for a join, which reads them whole; its
	// other columns it gathers from the pieces.
	CopyKeys bool `json:"copy_keys,omitempty"`
}

// hashBuffers recycles the row hashes of splits, garbage once each row's
// output is known (as idBuffers recycles their outputs).
var hashBuffers = sync.Pool{New: func() any { return new([]uint64) }}

// hashSplitOp splits a partition by a hash of its key columns.
func hashSplitOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a hashSplitArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opHashSplit, err)
	}
	rec, err := recordIn(opHashSplit, inputs[0])
	if err != nil {
		return nil, err
	}
	keys, _, err := keyColumns(rec, a.Keys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opHashSplit, err)
	}
	hbuf, pbuf := hashBuffers.Get().(*[]uint64), idBuffers.Get().(*[]int32)
	defer hashBuffers.Put(hbuf)
	defer idBuffers.Put(pbuf)
	*hbuf = kernel.HashRows(keys, *hbuf)
	*pbuf = kernel.PartitionOf(*hbuf, a.N, *pbuf)
	parts := *pbuf
	if a.Copy && a.N >= scatterPieces && len(parts) >= 8*a.N {
		return scattered(rec, parts, a.N), nil
	}
	if a.CopyKeys && a.N >= scatterPieces {
		return splitOf(rec, parts, a.N, a.Keys, keys), nil
	}
	return splitOf(rec, parts, a.N, nil, nil), nil
}

func recordIn(op string, v any) (arrow.Record, error) {
	rec, ok := v.(arrow.Record)
	if !ok {
		return nil, fmt.Errorf("%s: input is a %T, not a dataframe partition", op, v)
	}
	return rec, nil
}

// concatArgs carry the output's columns, for when there are no pieces.
type concatArgs struct {
	Out []colSpec `json:"out"`
}

// gathered concatenates one side's pieces into one record the caller
// releases; out gives its columns (nil: the first piece's).
func gathered(op string, tc *registry.Context, inputs []any, s int, out []colSpec) (arrow.Record, error) {
	side, err := sideOf(op, tc, inputs, s, out)
	if err != nil {
		return nil, err
	}
	defer side.release()
	var schema *arrow.Schema
	if out != nil {
		schema = schemaOf(out)
	}
	rec, err := side.record(schema)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return rec, nil
}

// concatOp assembles a partition from its pieces or inputs, in order.
func concatOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a concatArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opConcat, err)
	}
	if tc != nil && tc.Pieces != nil {
		return gathered(opConcat, tc, inputs, 0, a.Out)
	}
	return concatRecords(opConcat, a.Out, inputs)
}

// concatRecords concatenates partitions (inputs) into one record the
// caller releases; out gives its columns.
func concatRecords(op string, out []colSpec, inputs []any) (arrow.Record, error) {
	recs := make([]arrow.Record, len(inputs))
	for i, v := range inputs {
		r, err := recordIn(op, v)
		if err != nil {
			return nil, err
		}
		recs[i] = r
	}
	rec, err := kernel.ConcatRecordsDict(schemaOf(out), recs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return rec, nil
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
		if _, err := expr.Field(f.plan.schema(), c); err != nil {
			return failed(fmt.Errorf("DropDuplicates: %w", err))
		}
	}
	return &Frame{plan: newDedup(f.plan, subset)}
}

// Unique is the distinct values of col, nulls counting as one, as a
// one-column frame.
func (f *Frame) Unique(col string) *Frame {
	if f.err != nil {
		return f
	}
	return f.Select(col).DropDuplicates()
}

// dedup drops duplicate rows.
type dedup struct {
	child  node
	subset []string // nil: all columns
	tok    string
}

func newDedup(child node, subset []string) *dedup {
	return &dedup{child: child, subset: subset, tok: token("drop-duplicates", subset, child)}
}

func (d *dedup) cols() []string {
	if d.subset != nil {
		return d.subset
	}
	return names(d.child.schema())
}

func (d *dedup) schema() *arrow.Schema      { return d.child.schema() }
func (d *dedup) npartitions() int           { return d.child.npartitions() }
func (d *dedup) name() string               { return d.tok }
func (d *dedup) children() []node           { return []node{d.child} }
func (d *dedup) with(c []node) node         { return newDedup(c[0], d.subset) }
func (d *dedup) partitioning() partitioning { return partitioning{hash: d.cols(), n: d.npartitions()} }
func (d *dedup) explain() string {
	return "drop duplicates of " + strings.Join(d.cols(), ", ")
}

func (d *dedup) lower(l *lowering) []graph.Key {
	args := mustJSON(dedupArgs{Cols: d.cols(), Out: specOf(d.schema())})
	if d.npartitions() == 1 || d.child.partitioning().hashedBy(d.cols(), d.npartitions()) {
		return l.mapParts(d.tok, opDedup, args, l.keys(d.child))
	}
	local := graph.Name("drop-duplicates-local", opDedup, args, d.child.name())
	// An output's pieces are deduplicated as they arrive, first rows first.
	side := copiedHashSide(l.mapParts(local, opDedup, args, l.keys(d.child)), d.cols(), d.npartitions())
	side.merge, side.mergeArgs = opDedup, args
	return l.shuffle(d.tok, d.npartitions(), []shuffleSide{side}, opDedup, args)
}

type dedupArgs struct {
	Cols []string  `json:"cols"`
	Out  []colSpec `json:"out"`
}

func dedupOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a dedupArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opDedup, err)
	}
	rec, err := gathered(opDedup, tc, inputs, 0, a.Out)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	keys, _, err := keyColumns(rec, a.Cols)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opDedup, err)
	}
	return kernel.TakeRecord(rec, kernel.FirstRows(keys)), nil
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
	have := f.plan.npartitions()
	var outs [][]slice
	if n <= have {
		for j := range n {
			var o []slice
			for i := j * have / n; i < (j+1)*have/n; i++ {
				o = append(o, slice{Part: i, Of: 1})
			}
			outs = append(outs, o)
		}
	} else {
		for i := range have {
			k := (i+1)*n/have - i*n/have
			for s := range k {
				outs = append(outs, []slice{{Part: i, K: s, Of: k}})
			}
		}
	}
	return &Frame{plan: newRepartition(f.plan, outs)}
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
	optimized, release, err := adapt(ctx, ex, optimize(f.plan))
	if err != nil {
		return nil, err
	}
	defer release()
	l := newLowering()
	sizes := l.mapParts(graph.Name("nbytes", opNbytes, nil, optimized.name()), opNbytes, nil, l.keys(optimized))
	values, err := ex.Compute(ctx, l.g, sizes)
	runtime.KeepAlive(f)
	if err != nil {
		return nil, err
	}
	var outs [][]slice
	var run []slice
	var runBytes int64
	for i, v := range values {
		b := v.(int64)
		if k := int((b + size - 1) / size); k > 1 {
			if run != nil {
				outs, run, runBytes = append(outs, run), nil, 0
			}
			for s := range k {
				outs = append(outs, []slice{{Part: i, K: s, Of: k}})
			}
			continue
		}
		if run != nil && runBytes+b > size {
			outs, run, runBytes = append(outs, run), nil, 0
		}
		run, runBytes = append(run, slice{Part: i, Of: 1}), runBytes+b
	}
	if run != nil || len(outs) == 0 {
		outs = append(outs, run)
	}
	return &Frame{plan: newRepartition(f.plan, outs)}, nil
}

// slice is the k-th of "of" equal row ranges of an input partition.
type slice struct {
	Part int `json:"part"`
	K    int `json:"k"`
	Of   int `json:"of"`
}

// repartition makes each output partition of slices of input partitions.
type repartition struct {
	child node
	outs  [][]slice
	tok   string
}

func newRepartition(child node, outs [][]slice) *repartition {
	return &repartition{child: child, outs: outs, tok: token("repartition", outs, child)}
}

func (r *repartition) schema() *arrow.Schema      { return r.child.schema() }
func (r *repartition) npartitions() int           { return len(r.outs) }
func (r *repartition) name() string               { return r.tok }
func (r *repartition) children() []node           { return []node{r.child} }
func (r *repartition) with(c []node) node         { return newRepartition(c[0], r.outs) }
func (r *repartition) partitioning() partitioning { return partitioning{} }
func (r *repartition) explain() string            { return "repartition" }

func (r *repartition) lower(l *lowering) []graph.Key {
	in := l.keys(r.child)
	out := make([]graph.Key, len(r.outs))
	for j, o := range r.outs {
		args := mustJSON(sliceArgs{Slices: o, Out: specOf(r.schema())})
		inputs := make([]graph.Key, len(o))
		for i, s := range o {
			inputs[i] = in[s.Part]
		}
		out[j] = graph.Part(r.tok, j)
		l.g.Add(&graph.Task{Key: out[j], Op: opSlices, Args: args, Inputs: inputs, Combine: true})
	}
	return out
}

type sliceArgs struct {
	Slices []slice   `json:"slices"`
	Out    []colSpec `json:"out"`
}

// slicesOp concatenates slices of its inputs.
func slicesOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a sliceArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opSlices, err)
	}
	recs := make([]arrow.Record, len(inputs))
	for i, v := range inputs {
		rec, err := recordIn(opSlices, v)
		if err != nil {
			return nil, err
		}
		s, n := a.Slices[i], rec.NumRows()
		recs[i] = rec.NewSlice(int64(s.K)*n/int64(s.Of), int64(s.K+1)*n/int64(s.Of))
		defer recs[i].Release()
	}
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	rec, err := kernel.ConcatRecordsDict(schemaOf(a.Out), recs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opSlices, err)
	}
	return rec, nil
}

// nbytesOp measures a partition's buffers.
func nbytesOp(_ *registry.Context, _ []byte, inputs []any) (any, error) {
	rec, err := recordIn(opNbytes, inputs[0])
	if err != nil {
		return nil, err
	}
	var n int64
	for _, c := range rec.Columns() {
		n += int64(recordBytes(c.Data()))
	}
	return n, nil
}

func recordBytes(d arrow.ArrayData) int {
	n := 0
	for _, b := range d.Buffers() {
		if b != nil {
			n += b.Len()
		}
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += recordBytes(d.Dictionary())
	}
	return n
}

// emptyRecord is a record of no rows with the columns of out.
func emptyRecord(out []colSpec) arrow.Record {
	rec, _ := kernel.ConcatRecords(schemaOf(out), nil)
	return rec
}
