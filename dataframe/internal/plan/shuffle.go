package plan

import (
	"fmt"
	"strings"

	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/graph"
)

// hashShuffle is a shuffle by a hash of columns.
type hashShuffle struct {
	child Node
	cols  []string
	n     int
	tok   string
}

func NewHashShuffle(child Node, cols []string, n int) *hashShuffle {
	return &hashShuffle{child: child, cols: cols, n: n, tok: token("shuffle", exchange.HashSplitArgs{Keys: cols, N: n}, child)}
}

func (s *hashShuffle) Schema() *arrow.Schema      { return s.child.Schema() }
func (s *hashShuffle) Npartitions() int           { return s.n }
func (s *hashShuffle) Name() string               { return s.tok }
func (s *hashShuffle) children() []Node           { return []Node{s.child} }
func (s *hashShuffle) with(c []Node) Node         { return NewHashShuffle(c[0], s.cols, s.n) }
func (s *hashShuffle) Partitioning() partitioning { return partitioning{hash: s.cols, n: s.n} }
func (s *hashShuffle) explain() string {
	return fmt.Sprintf("shuffle hash(%s)", strings.Join(s.cols, ", "))
}

func (s *hashShuffle) lower(l *Lowering) []graph.Key {
	return hashShuffled(l, s.tok, s.child, s.cols, s.n, exchange.OpConcat, ops.MustJSON(ops.ConcatArgs{Out: ops.SpecOf(s.Schema())}))
}

// hashShuffled shuffles child's partitions by a hash of cols into n, each
// assembled by unpackOp; none when child is partitioned so already, where
// unpackOp runs on each partition as it is.
func hashShuffled(l *Lowering, name string, child Node, cols []string, n int, unpackOp string, unpackArgs []byte) []graph.Key {
	parts := l.Keys(child)
	if child.Partitioning().hashedBy(cols, n) {
		return l.MapParts(name, unpackOp, unpackArgs, parts)
	}
	return l.shuffle(name, n, []shuffleSide{copiedHashSide(parts, cols, n)}, unpackOp, unpackArgs)
}

// copiedHashSide is a shuffle side that splits parts by a hash of keys into
// n, copying the pieces out (hashSplitArgs.Copy).
func copiedHashSide(parts []graph.Key, keys []string, n int) shuffleSide {
	return shuffleSide{parts: parts, op: exchange.OpHashSplit, args: ops.MustJSON(exchange.HashSplitArgs{Keys: keys, N: n, Copy: true})}
}

// dedup drops duplicate rows.
type dedup struct {
	child  Node
	subset []string // nil: all columns
	tok    string
}

func NewDedup(child Node, subset []string) *dedup {
	return &dedup{child: child, subset: subset, tok: token("drop-duplicates", subset, child)}
}

func (d *dedup) cols() []string {
	if d.subset != nil {
		return d.subset
	}
	return Names(d.child.Schema())
}

func (d *dedup) Schema() *arrow.Schema      { return d.child.Schema() }
func (d *dedup) Npartitions() int           { return d.child.Npartitions() }
func (d *dedup) Name() string               { return d.tok }
func (d *dedup) children() []Node           { return []Node{d.child} }
func (d *dedup) with(c []Node) Node         { return NewDedup(c[0], d.subset) }
func (d *dedup) Partitioning() partitioning { return partitioning{hash: d.cols(), n: d.Npartitions()} }
func (d *dedup) explain() string {
	return "drop duplicates of " + strings.Join(d.cols(), ", ")
}

func (d *dedup) lower(l *Lowering) []graph.Key {
	args := ops.MustJSON(exchange.DedupArgs{Cols: d.cols(), Out: ops.SpecOf(d.Schema())})
	if d.Npartitions() == 1 || d.child.Partitioning().hashedBy(d.cols(), d.Npartitions()) {
		return l.MapParts(d.tok, exchange.OpDedup, args, l.Keys(d.child))
	}
	local := graph.Name("drop-duplicates-local", exchange.OpDedup, args, d.child.Name())
	// An output's pieces are deduplicated as they arrive, first rows first.
	side := copiedHashSide(l.MapParts(local, exchange.OpDedup, args, l.Keys(d.child)), d.cols(), d.Npartitions())
	side.merge, side.mergeArgs = exchange.OpDedup, args
	return l.shuffle(d.tok, d.Npartitions(), []shuffleSide{side}, exchange.OpDedup, args)
}

// repartition makes each output partition of slices of input partitions.
type repartition struct {
	child Node
	outs  [][]exchange.Slice
	tok   string
}

func NewRepartition(child Node, outs [][]exchange.Slice) *repartition {
	return &repartition{child: child, outs: outs, tok: token("repartition", outs, child)}
}

func (r *repartition) Schema() *arrow.Schema      { return r.child.Schema() }
func (r *repartition) Npartitions() int           { return len(r.outs) }
func (r *repartition) Name() string               { return r.tok }
func (r *repartition) children() []Node           { return []Node{r.child} }
func (r *repartition) with(c []Node) Node         { return NewRepartition(c[0], r.outs) }
func (r *repartition) Partitioning() partitioning { return partitioning{} }
func (r *repartition) explain() string            { return "repartition" }

func (r *repartition) lower(l *Lowering) []graph.Key {
	in := l.Keys(r.child)
	out := make([]graph.Key, len(r.outs))
	for j, o := range r.outs {
		args := ops.MustJSON(exchange.SliceArgs{Slices: o, Out: ops.SpecOf(r.Schema())})
		inputs := make([]graph.Key, len(o))
		for i, s := range o {
			inputs[i] = in[s.Part]
		}
		out[j] = graph.Part(r.tok, j)
		l.G.Add(&graph.Task{Key: out[j], Op: exchange.OpSlices, Args: args, Inputs: inputs, Combine: true})
	}
	return out
}
