package plan

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/duskdata/dusk/dataframe/internal/agg"
	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
)

// ManyGroupsBytes is the size of the partial results that one combine at
// the top of a tree reduction would read (splitEvery partitions' worth)
// above which they are combined by a shuffle over every thread instead:
// the tree's last combines, and the sort by the keys, run on one thread.
// That is some hundred thousand groups' states, however many partitions
// there are. (With all the partial results held to 32 MiB, db-benchmark's
// q5 and q7 at 1e7 rows, 100,000 groups, took 0.09 and 0.24–0.27 s
// against 0.05 and 0.13–0.20 shuffled.)
var ManyGroupsBytes int64 = 4 << 20

// shuffleBytes is about how much of the partial results one output of a
// shuffle combines. Fewer outputs make the split's scatter cheaper (each
// output a stream it writes: 3.3 ns a value into 32, 7–8 into 119) and
// an output's groups more; a combine splits groups too many for the L2
// cache by their hashes itself (kernel.GroupPieces). At 1e8 rows,
// db-benchmark's q5 (1M integer groups) took 1.66–1.78 s at 96 MiB
// against 2.27–2.52 at 32, q3, q7 and q10 the same.
const shuffleBytes = 96 << 20

// undecided reports whether an aggregation chooses its way once its
// partial results are computed and measured: one whose result is a single
// sorted partition by default (no SplitOut above 1), not already
// partitioned by its keys, over more than one partition, with keys (not
// Frame.Agg's one group), and whose input reads no step another step
// also reads (but held data): computed apart, that step would be computed
// twice. Nor one whose partitioning a later join relies on (see reliedOn).
func (n *groupAgg) undecided(shared, relied map[string]bool) bool {
	return n.args.Mode == agg.ModeAgg && !n.args.Holistic() && n.splitOut <= 1 && !n.inPlace() &&
		n.child.Npartitions() > 1 && !slices.Equal(n.args.Keys, []string{agg.AllRows}) &&
		!readsShared(n.child, shared) && !relied[n.Name()]
}

// readsShared reports whether n is, or reads, a step that shared names,
// other than data already held or files read (a read again costs less
// than many groups combined in one task: SQL's TPC-H q18 groups the lines
// it joins again).
func readsShared(n Node, shared map[string]bool) bool {
	switch n.(type) {
	case *Persisted, *Source:
		return false
	}
	if shared[n.Name()] {
		return true
	}
	for _, c := range n.children() {
		if readsShared(c, shared) {
			return true
		}
	}
	return false
}

// sharedSteps names the steps of a plan that more than one step reads.
func sharedSteps(plan Node) map[string]bool {
	readers := map[string]int{}
	eachStep(plan, func(n Node) {
		for _, c := range n.children() {
			readers[c.Name()]++
		}
	})
	shared := map[string]bool{}
	for name, k := range readers {
		if k > 1 {
			shared[name] = true
		}
	}
	return shared
}

// settle computes some of an undecided aggregation's partial results
// (sampleParts, of sampleFrom or more), holds them and plans the rest on
// their size: few groups combine in a tree into one partition, sorted by
// the keys; many are shuffled by a hash of the keys, over every thread and
// into outputs small enough to group in the cache, each combined and
// finished, unsorted as Dask's split_out, Polars' and Spark's results are,
// or, where SplitOut(1) asked for one partition, then concatenated and
// sorted by the keys. The other partial results are computed in the plan
// itself, each dropped once combined or shuffled: holding them all until
// the end doubled what a shuffle of many groups holds at once
// (db-benchmark's q3 at 1e8 rows grew RSS by 4.5 GiB, which this VM faults
// in at about 4 s a GiB).
func (a *adapter) settle(n *groupAgg) (Node, error) {
	parts := newPartials(n.child, n.args)
	k := parts.Npartitions()
	if k >= sampleFrom {
		k = sampleParts
	}
	sample, err := a.holdFirst(parts, k)
	if err != nil {
		return nil, err
	}
	parts.held = sample
	outputs, total := 1, int64(-1)
	if sample.Bytes >= 0 {
		total = sample.Bytes / int64(len(sample.Keys)) * int64(parts.Npartitions())
	}
	if per := int64(parts.Npartitions()); total/per*min(per, splitEvery) > ManyGroupsBytes {
		threads, err := clusterThreads(a.ctx, a.ex)
		if err != nil {
			return nil, err
		}
		outputs = max(threads, 2, int(min(total/shuffleBytes, 1<<10)))
	}
	return newCombined(parts, total, n, outputs), nil
}

// sampleParts is how many partitions' partial results are computed first to
// measure, where there are sampleFrom or more; below that, all of them are,
// as the plan would otherwise wait on a step that does little (db-benchmark's
// q5 and q7 at 1e7 rows, 8 partitions, took 20–40 ms longer sampled).
// Asking the cluster for its threads, to take one a thread, cost as much.
const (
	sampleParts = 2
	sampleFrom  = 16
)

// holdFirst computes and holds the first k partitions of n (all, if it has
// no more), under n's own keys, so that a plan that reads n finds them
// held and computes the others.
func (a *adapter) holdFirst(n Node, k int) (*Persisted, error) {
	name := fmt.Sprintf("%s[:%d]", n.Name(), k)
	if p, ok := a.held[name]; ok {
		return p, nil
	}
	l := NewLowering()
	keys := l.Keys(n)
	p, err := persistKeys(a.ctx, a.ex, l.G, keys[:min(k, len(keys))], n.Schema(), name, partitioning{})
	if err != nil {
		return nil, err
	}
	a.held[name] = p
	return p, nil
}

// clusterThreads is how many tasks the cluster runs at once, 2 where the
// executor cannot tell.
func clusterThreads(ctx context.Context, ex collections.Executor) (int, error) {
	t, ok := ex.(collections.Threaded)
	if !ok {
		return 2, nil
	}
	n, err := t.Threads(ctx)
	if err != nil {
		return 0, fmt.Errorf("groupby: count the cluster's threads: %w", err)
	}
	return n, nil
}

// partials are an aggregation's partial results, a partition's each: its
// keys, then each aggregation's state columns. The static plan reads them
// as the held one does, under the same name.
type partials struct {
	child Node
	args  agg.GroupArgs
	out   *arrow.Schema
	tok   string
	held  *Persisted // the first partitions', computed already (settle); nil: none
}

func newPartials(child Node, args agg.GroupArgs) *partials {
	in := child.Schema()
	var fields []arrow.Field
	for _, k := range args.Keys {
		fields = append(fields, in.Field(in.FieldIndices(k)[0]))
	}
	for _, s := range args.Aggs {
		fn, _ := kernel.ParseAggFunc(s.Fn) // checked when the aggregation was made
		typ := arrow.DataType(kernel.Int64)
		if s.Col != "" {
			typ = in.Field(in.FieldIndices(s.Col)[0]).Type
		}
		for j, t := range fn.StateTypes(typ) {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("%s#%d", s.As, j), Type: t, Nullable: true})
		}
	}
	return &partials{child: child, args: args, out: arrow.NewSchema(fields, nil),
		tok: graph.Name("groupby-partial", agg.OpPartial, ops.MustJSON(args), child.Name())}
}

func (n *partials) Schema() *arrow.Schema      { return n.out }
func (n *partials) Npartitions() int           { return n.child.Npartitions() }
func (n *partials) Name() string               { return n.tok }
func (n *partials) children() []Node           { return []Node{n.child} }
func (n *partials) with(c []Node) Node         { return newPartials(c[0], n.args) }
func (n *partials) Partitioning() partitioning { return partitioning{} }
func (n *partials) explain() string {
	return fmt.Sprintf("groupby %s partial %s", strings.Join(n.args.Keys, ", "), strings.Join(aggNames(n.args), ", "))
}

func (n *partials) lower(l *Lowering) []graph.Key {
	in := l.Keys(n.child)
	if n.held == nil {
		return l.MapParts(n.tok, agg.OpPartial, ops.MustJSON(n.args), in)
	}
	args := ops.MustJSON(n.args)
	out := make([]graph.Key, len(in))
	for i, k := range in {
		out[i] = graph.Part(n.tok, i)
		if i >= len(n.held.Keys) { // the held ones are read where they are
			l.G.Add(&graph.Task{Key: out[i], Op: agg.OpPartial, Args: args, Inputs: []graph.Key{k}})
		}
	}
	return out
}

// combined finishes an aggregation from its partial results, the first
// held (settle): by a
// tree reduction into one partition (outputs 1), or by a shuffle on a hash
// of the keys into outputs partitions.
type combined struct {
	partials Node          // the first few held (settle)
	bytes    int64         // the partial results', estimated from those; -1: unknown
	args     agg.GroupArgs // Sort: the result is one partition, sorted
	out      *arrow.Schema
	outputs  int
	tok      string
}

func newCombined(p Node, bytes int64, n *groupAgg, outputs int) *combined {
	args := n.args
	args.Sort = outputs == 1 || n.splitOut == 1
	return &combined{partials: p, bytes: bytes, args: args, out: n.out, outputs: outputs,
		tok: token("groupby-combined", struct {
			A agg.GroupArgs
			N int
		}{args, outputs}, p)}
}

func (n *combined) Schema() *arrow.Schema { return n.out }
func (n *combined) Npartitions() int {
	if n.args.Sort {
		return 1
	}
	return n.outputs
}
func (n *combined) Name() string     { return n.tok }
func (n *combined) children() []Node { return []Node{n.partials} }
func (n *combined) with([]Node) Node { return n }
func (n *combined) Partitioning() partitioning {
	return partitioning{hash: n.args.Keys, n: n.Npartitions()}
}

func (n *combined) explain() string {
	s := fmt.Sprintf("groupby %s agg %s", strings.Join(n.args.Keys, ", "), strings.Join(aggNames(n.args), ", "))
	switch {
	case n.outputs == 1:
		return s + " (few groups: tree reduction)"
	case n.args.Sort:
		return s + fmt.Sprintf(" (many groups: shuffle by the keys into %d, then concatenated and sorted)", n.outputs)
	}
	return s + fmt.Sprintf(" (many groups: shuffle by the keys into %d)", n.outputs)
}

func (n *combined) lower(l *Lowering) []graph.Key {
	args := ops.MustJSON(n.args)
	parts := l.Keys(n.partials)
	if n.outputs == 1 {
		return treeCombine(l, n.tok, args, parts)
	}
	if !n.args.Sort {
		return shuffleCombine(l, n.tok, n.outputs, n.args.Keys, args, parts)
	}
	unsorted := n.args
	unsorted.Sort = false
	outs := shuffleCombine(l, graph.Name("groupby-split", agg.OpUnpack, args, n.tok), n.outputs, n.args.Keys, ops.MustJSON(unsorted), parts)
	one := graph.Name("groupby-concat", exchange.OpConcat, nil, n.tok)
	l.G.Add(&graph.Task{Key: graph.Part(one, 0), Op: exchange.OpConcat, Args: ops.MustJSON(ops.ConcatArgs{Out: ops.SpecOf(n.out)}), Inputs: outs})
	sargs := exchange.SortArgs{By: n.args.Keys, Asc: agg.Trues(len(n.args.Keys)), Out: ops.SpecOf(n.out)}
	return l.MapParts(n.tok, exchange.OpSortRows, ops.MustJSON(sargs), []graph.Key{graph.Part(one, 0)})
}

// aggNames lists an aggregation's result names.
func aggNames(a agg.GroupArgs) []string {
	var out []string
	for _, s := range a.Aggs {
		out = append(out, s.As)
	}
	return out
}
