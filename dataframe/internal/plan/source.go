package plan

import (
	"fmt"
	"strings"

	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
)

// Source is a step with no inputs: one task per partition, each with its
// own arguments. The optimizer narrows it to the columns used (readers that
// can skip columns never parse the others) and hands it the filters that
// apply to its rows, which run before the partition leaves the reader.
type Source struct {
	op    string
	Args  [][]byte
	full  *arrow.Schema
	base  string     // the token of the unnarrowed source
	cols  []string   // the columns kept, in full's order; nil: all
	pred  *expr.Node // rows kept; nil: all
	Bytes int64      // the input's size, for choosing broadcast joins; -1: unknown
	rows  int64      // the input's rows (before pred); -1: unknown
	out   *arrow.Schema
	tok   string
	// all are the partitions' arguments before pruning; prune, when set,
	// returns those of the partitions that may hold rows where pred holds
	// (a reader's statistics rule the others out), with their statistics.
	all   [][]byte
	prune func(pred *expr.Node) ([][]byte, []map[string]expr.Range)
	// scanned, with prune, is how many bytes a read of the rows where pred
	// holds decodes: those of the pieces the statistics do not rule out,
	// and of a piece whose page index bounds span's column, the share of
	// its values within span (nil: all).
	scanned func(pred *expr.Node, span *keySpan) int64
	// stats, where the reader has them, are what each partition's (args')
	// statistics say of its columns' values; allStats those of all.
	stats, allStats []map[string]expr.Range
}

func NewSource(prefix, op string, args [][]byte, full *arrow.Schema, base string, sz Size) *Source {
	if base == "" {
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = string(a)
		}
		base = graph.Name(prefix, op, nil, parts...)
	}
	return (&Source{op: op, Args: args, all: args, full: full, base: base, Bytes: sz.Bytes, rows: sz.Rows}).narrowed(nil, nil)
}

// narrowed returns the source reading only cols (nil: all) and keeping the
// rows where pred holds (nil: all).
func (n *Source) narrowed(cols []string, pred *expr.Node) *Source {
	c := *n
	pred = n.withoutNullTests(pred)
	c.cols, c.pred, c.out, c.Args, c.stats = cols, pred, n.full, n.all, n.allStats
	if pred != nil && n.prune != nil {
		if kept, stats := n.prune(pred); len(kept) > 0 {
			c.Args, c.stats = kept, stats
		} else {
			c.Args, c.stats = n.all[:1], nil // no rows: one partition, filtered to none
		}
	}
	if cols != nil {
		fields := make([]arrow.Field, len(cols))
		for i, name := range cols {
			fields[i] = n.full.Field(n.full.FieldIndices(name)[0])
		}
		c.out = arrow.NewSchema(fields, nil)
	}
	c.tok = n.base
	if cols != nil || pred != nil {
		c.tok = graph.Name(graph.Key(n.base).Prefix(), n.op, ops.MustJSON(ops.SourceArgs{Cols: cols, Pred: pred}), n.base)
	}
	return &c
}

// withoutNullTests is pred without its conjuncts "not isnull(c)" that the
// statistics prove true in every partition: they cost a test a row, and
// reads that differ only by them (SQL's join keys, which must not be null)
// are one read.
func (n *Source) withoutNullTests(pred *expr.Node) *expr.Node {
	if pred == nil {
		return pred
	}
	var out *expr.Node
	for _, c := range expr.Conjuncts(pred) {
		if c.Op == "not" && c.Args[0].Op == "isnull" && c.Args[0].Args[0].Op == "col" && n.neverNull(c.Args[0].Args[0].Name) {
			continue
		}
		out = expr.And(out, c)
	}
	return out
}

// neverNull reports whether the statistics prove column col holds no null.
func (n *Source) neverNull(col string) bool {
	if len(n.allStats) == 0 || len(n.allStats) != len(n.all) {
		return false
	}
	for _, st := range n.allStats {
		r, ok := st[col]
		if !ok || r.Nulls || r.AllNull {
			return false
		}
	}
	return true
}

// NeverNull reports whether the statistics of the files a plan reads prove
// that its column col holds no null, through the steps that keep a
// column's values as they are.
func NeverNull(n Node, col string) bool {
	switch n := n.(type) {
	case *Source:
		return n.neverNull(col)
	case *filter:
		return NeverNull(n.child, col)
	case *project:
		return NeverNull(n.child, col)
	case *assign:
		return n.col != col && NeverNull(n.child, col)
	case *renaming:
		for old, new := range n.names {
			if new == col {
				return NeverNull(n.child, old)
			}
		}
		_, gone := n.names[col]
		return !gone && NeverNull(n.child, col)
	case *join:
		if h := n.spec.How; h != kernel.Inner && h != kernel.Semi && h != kernel.Anti {
			return false // an outer join fills the rows it keeps with nulls
		}
		side, src, ok := n.source(col)
		return ok && NeverNull(n.children()[side], src)
	}
	return false
}

func (n *Source) Schema() *arrow.Schema { return n.out }
func (n *Source) Npartitions() int      { return len(n.Args) }
func (n *Source) Name() string          { return n.tok }
func (n *Source) children() []Node      { return nil }
func (n *Source) with([]Node) Node      { return n }

// Partitioning gives the bounds the statistics know of each integer column
// in every partition.
func (n *Source) Partitioning() partitioning {
	var p partitioning
	if len(n.stats) != len(n.Args) {
		return p
	}
	for _, f := range n.out.Fields() {
		if !arrow.IsInteger(kernel.PlainType(f.Type).ID()) {
			continue
		}
		rs := make([]keyRange, len(n.stats))
		for i, st := range n.stats {
			lo, ok1 := st[f.Name].Min.(int64)
			hi, ok2 := st[f.Name].Max.(int64)
			if !ok1 || !ok2 {
				rs = nil
				break
			}
			rs[i] = keyRange{lo, hi, st[f.Name].Nulls}
		}
		if rs != nil {
			if p.bounds == nil {
				p.bounds = map[string][]keyRange{}
			}
			p.bounds[f.Name] = rs
		}
	}
	return p
}

func (n *Source) explain() string {
	s := fmt.Sprintf("%s %s", graph.Key(n.base).Prefix(), strings.Join(Names(n.out), ", "))
	if n.pred != nil {
		s += " where " + n.pred.String()
	}
	return s
}

func (n *Source) lower(l *Lowering) []graph.Key {
	keys := make([]graph.Key, len(n.Args))
	for i, a := range n.taskArgs() {
		keys[i] = graph.Part(n.tok, i)
		l.G.Add(&graph.Task{Key: keys[i], Op: n.op, Args: a})
	}
	return keys
}

// taskArgs are the arguments of the tasks that read the partitions.
func (n *Source) taskArgs() [][]byte {
	out := make([][]byte, len(n.Args))
	for i, a := range n.Args {
		out[i] = ops.SourceTask(n.op, a, n.cols, n.pred)
	}
	return out
}
