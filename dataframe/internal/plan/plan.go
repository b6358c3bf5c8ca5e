package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
)

// Node is one step of a plan: it knows its output's schema, partitions and
// how they are partitioned, and adds the tasks that compute them to a
// graph. Nodes never change once made; the optimizer makes new ones.
type Node interface {
	// Schema is the logical schema: strings are plain utf8 here, whatever
	// the partitions hold.
	Schema() *arrow.Schema
	Npartitions() int
	// Name is the step's token: equal steps over equal inputs have equal names.
	Name() string
	children() []Node
	// with returns the step over other inputs, as many as children.
	with(children []Node) Node
	// Partitioning says how rows are spread over the partitions.
	Partitioning() partitioning
	// explain describes the step in a line, for Explain.
	explain() string
	// lower adds the step's tasks and returns its partitions' keys.
	lower(l *Lowering) []graph.Key
}

// partitioning is how a frame's rows are spread over its partitions: by a
// hash of columns (rows with equal values in them share a partition), by
// ranges of a sorted column, or not known; and, apart from that, the bounds
// of some integer columns in each partition, as the readers' statistics
// give them (a file source's partitions, and the steps that keep them).
type partitioning struct {
	hash   []string // the columns hashed; nil: not hash-partitioned
	same   []string // other columns equal to hash's, pairwise (an inner join's other keys); nil if none
	n      int
	Sorted string // the column partitions are sorted by, ascending, in ranges
	// bounds are each partition's least and greatest value of a column,
	// by column, one pair a partition; nulls aside.
	bounds map[string][]keyRange
}

// keyRange is the least and greatest of some integers, both included, and
// whether there may be nulls among them.
type keyRange struct {
	lo, hi int64
	nulls  bool
}

// ordered reports whether ranges lie one after another, overlapping little:
// together they are at most twice as wide as the span they cover, as the
// row groups of a file written in the order of the column are (TPC-H's
// lines and orders by their order key; events by time).
func ordered(rs []keyRange) bool {
	if len(rs) < 2 {
		return false
	}
	lo, hi := rs[0].lo, rs[0].hi
	var width float64
	for _, r := range rs {
		lo, hi = min(lo, r.lo), max(hi, r.hi)
		width += float64(r.hi) - float64(r.lo) + 1
	}
	return width <= 2*(float64(hi)-float64(lo)+1)
}

// without is p forgetting what it knows of column c's values.
func (p partitioning) without(c string) partitioning {
	if _, ok := p.bounds[c]; ok {
		b := maps.Clone(p.bounds)
		delete(b, c)
		p.bounds = b
	}
	return p
}

// hashedBy reports whether rows with equal values of cols are known to
// share a partition, among n partitions.
func (p partitioning) hashedBy(cols []string, n int) bool {
	return p.hash != nil && p.n == n && (slices.Equal(p.hash, cols) || slices.Equal(p.same, cols))
}

// hashedWithin reports whether rows with equal values of cols share a
// partition because the rows are hashed by some of cols.
func (p partitioning) hashedWithin(cols []string) bool {
	within := func(hash []string) bool {
		if hash == nil {
			return false
		}
		for _, c := range hash {
			if !slices.Contains(cols, c) {
				return false
			}
		}
		return true
	}
	return within(p.hash) || within(p.same)
}

// keptBy is p after a step whose output has the columns of s: a partitioning
// on a column that is gone is forgotten.
func (p partitioning) keptBy(s *arrow.Schema) partitioning {
	for _, c := range p.same {
		if !s.HasField(c) {
			p.same = nil
			break
		}
	}
	for _, c := range p.hash {
		if !s.HasField(c) {
			p.hash = p.same
			p.same = nil
			break
		}
	}
	if p.hash == nil {
		p.n = 0
	}
	if p.Sorted != "" && !s.HasField(p.Sorted) {
		p.Sorted = ""
	}
	for c := range p.bounds {
		if !s.HasField(c) {
			p = p.without(c)
		}
	}
	return p
}

// Lowering turns a plan into a graph, each step once.
type Lowering struct {
	G    *graph.Graph
	done map[string][]graph.Key // by node name
}

func NewLowering() *Lowering { return &Lowering{G: graph.New(), done: make(map[string][]graph.Key)} }

func (l *Lowering) Keys(n Node) []graph.Key {
	if ks, ok := l.done[n.Name()]; ok {
		return ks
	}
	ks := n.lower(l)
	l.done[n.Name()] = ks
	return ks
}

// MapParts adds a task per partition of in: op over that partition and the
// extra inputs every task reads.
func (l *Lowering) MapParts(name, op string, args []byte, in []graph.Key, extra ...graph.Key) []graph.Key {
	out := make([]graph.Key, len(in))
	for i, k := range in {
		out[i] = graph.Part(name, i)
		l.G.Add(&graph.Task{Key: out[i], Op: op, Args: args, Inputs: append([]graph.Key{k}, extra...)})
	}
	return out
}

// shuffleSide is one side of a shuffle: the partitions split, the
// operation that splits each into a registry.Split, and keys every split
// also reads (such as range bounds).
type shuffleSide struct {
	parts []graph.Key
	op    string
	args  []byte
	extra []graph.Key
	// merge and mergeArgs combine the side's pieces of one output as they
	// arrive (graph.Shuffle.Merge); merge "": they are kept as they come.
	merge     string
	mergeArgs []byte
}

// shuffle adds a peer-to-peer shuffle (DESIGN §7) of one or two sides into
// n outputs, each assembled by unpackOp from its pieces of every side, and
// returns the outputs' keys. Tasks grow as inputs + outputs.
func (l *Lowering) shuffle(name string, n int, sides []shuffleSide, unpackOp string, unpackArgs []byte) []graph.Key {
	id := graph.Name("shuffle", unpackOp, unpackArgs, name)
	sources := make([]int, len(sides))
	var transfers []graph.Key
	for s, side := range sides {
		tname := graph.Name("shuffle-transfer", side.op, side.args, id, fmt.Sprint(s))
		for i, p := range side.parts {
			k := graph.Part(tname, i)
			l.G.Add(&graph.Task{Key: k, Op: side.op, Args: side.args, Inputs: append([]graph.Key{p}, side.extra...),
				Shuffle: &graph.Shuffle{ID: id, Role: graph.Transfer, Outputs: n, Side: s, Source: i,
					Merge: side.merge, MergeArgs: side.mergeArgs}})
			transfers = append(transfers, k)
		}
		sources[s] = len(side.parts)
	}
	barrier := graph.Part(graph.Name("shuffle-barrier", registry.BarrierOp, nil, id), 0)
	l.G.Add(&graph.Task{Key: barrier, Op: registry.BarrierOp, Inputs: transfers,
		Shuffle: &graph.Shuffle{ID: id, Role: graph.Barrier, Outputs: n}})
	uname := graph.Name("shuffle-unpack", unpackOp, unpackArgs, id)
	out := make([]graph.Key, n)
	for j := range out {
		out[j] = graph.Part(uname, j)
		l.G.Add(&graph.Task{Key: out[j], Op: unpackOp, Args: unpackArgs, Inputs: []graph.Key{barrier},
			Shuffle: &graph.Shuffle{ID: id, Role: graph.Unpack, Outputs: n, Part: j, Sources: sources}})
	}
	return out
}

// token names a step: its kind, its arguments and its inputs' names.
func token(prefix string, args any, inputs ...Node) string {
	names := make([]string, len(inputs))
	for i, n := range inputs {
		names[i] = n.Name()
	}
	return graph.Name(prefix, prefix, ops.MustJSON(args), names...)
}

func Explain(plan Node) string {
	var b strings.Builder
	relied, shared := reliedOn(plan), sharedSteps(plan)
	var walk func(n Node, depth int)
	walk = func(n Node, depth int) {
		line := n.explain()
		switch n := n.(type) {
		case *join:
			if side := n.undecidedSide(); side >= 0 {
				when := "small"
				if relied[n.Name()] {
					when = "small and its keys unique" // see adapter.visit
				}
				line += fmt.Sprintf("; its %s side computed first, broadcast if %s", [2]string{"left", "right"}[side], when)
			}
		case *groupAgg:
			if n.undecided(shared, relied) {
				line = strings.TrimSuffix(line, " (tree reduction)") +
					" (partial results computed first: a tree reduction if groups are few, else a shuffle by the keys)"
			}
		}
		fmt.Fprintf(&b, "%s%s  [%d]\n", strings.Repeat("  ", depth), line, n.Npartitions())
		for _, c := range n.children() {
			walk(c, depth+1)
		}
	}
	walk(plan, 0)
	return b.String()
}

// Names lists a schema's column names.
func Names(s *arrow.Schema) []string {
	out := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = f.Name
	}
	return out
}
