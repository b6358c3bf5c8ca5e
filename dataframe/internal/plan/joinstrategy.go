package plan

// How a join's rows meet (its strategy: co-partitioned, broadcast, by key
// ranges, shuffled) and the sizes that choose it; join.go is the plan node
// and its tasks.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
)

// The ways rows meet.
const (
	joinPartitioned    = "co-partitioned: no shuffle"
	joinBroadcastRight = "broadcast right"
	joinBroadcastLeft  = "broadcast left"
	joinMarkLeft       = "broadcast left, marked by every right partition"
	joinShuffle        = "hash shuffle of both sides"
	joinRanges         = "by key ranges: each left partition reads the right rows of its range"
)

// chooseStrategy is how the join runs: each step asks its inputs'
// partitions, which for a join is its strategy, so it is worked out once
// a join (planning q21 asked it of the same joins thousands of times).
func (j *join) chooseStrategy() string {
	ln, rn := j.left.Npartitions(), j.right.Npartitions()
	if ln == rn && j.left.Partitioning().hashedBy(j.spec.LeftOn, ln) && j.right.Partitioning().hashedBy(j.spec.RightOn, rn) {
		return joinPartitioned
	}
	if j.ranges().ok {
		return joinRanges
	}
	ls, rs := Estimate(j.left), Estimate(j.right)
	lb, rb := ls.Bytes, rs.Bytes
	small := func(n Node, s, other Size) bool {
		if j.spec.Broadcast < 0 {
			return n.Npartitions() == 1
		}
		return n.Npartitions() == 1 || s.Bytes >= 0 && (s.Bytes < j.spec.Broadcast || broadcastable(s, other))
	}
	how := j.spec.How
	semi := how == kernel.Semi || how == kernel.Anti
	switch {
	case semi && small(j.left, ls, rs) && small(j.right, rs, ls) && lb >= 0 && rb > lb:
		// Both small: the smaller side's table is built, the other's
		// partitions probe it (TPC-H's q22 marks its customers with the
		// orders instead of building a table of 1.5M orders).
		return joinMarkLeft
	case keepsLeft(how) && small(j.right, rs, ls) && (!small(j.left, ls, rs) || rn <= ln):
		return joinBroadcastRight
	case (how == kernel.Inner || how == kernel.Right) && small(j.left, ls, rs):
		return joinBroadcastLeft
	case keepsLeft(how) && small(j.right, rs, ls):
		return joinBroadcastRight
	case semi && small(j.left, ls, rs):
		return joinMarkLeft
	}
	return joinShuffle
}

// broadcastable reports whether a side of size s is small beside the other
// side of size other: at most maxBroadcast bytes, and at most an eighth of
// the other's rows where both sides' rows are known, else of its bytes. Its table is built once in a
// process and each partition of the other side probes it where the
// partition lies, where a shuffle would move and gather every row of both;
// the cap bounds what every worker holds. Rows decide where both are known,
// since building and probing cost by the row: TPC-H q7's 1.4M lines of
// French and German suppliers (56 MB) are broadcast beside 15M orders
// whose two key columns the estimate puts at 258 MB.
func broadcastable(s, other Size) bool {
	switch {
	case s.Bytes < 0 || other.Bytes < 0 || s.Bytes > maxBroadcast:
		return false
	case s.Rows >= 0 && other.Rows >= 0:
		return s.Rows <= other.Rows/8
	}
	return s.Bytes <= other.Bytes/8
}

// byRanges says whether the join can meet each left partition with the
// right rows of its key range, read by the join's own task (as Spark's
// storage-partitioned join): one integer key, the left partitions' bounds
// of it known and ordered (their files were written in the key's order),
// the right side a file read whose statistics bound its key (in ordered
// ranges where it has several partitions), in no more partitions than the
// left has, not so small that broadcasting it costs less, and whose row
// groups (or pages, where a page index bounds the key) are fine enough
// that the ranges' reads together decode at most twice its bytes. The
// right side then never crosses the network: each task reads the pages
// its range overlaps, where a broadcast sends the whole side to every
// worker.
func (j *join) byRanges() rangeJoin {
	r, ok := j.right.(*Source)
	if !ok || r.scanned == nil || len(j.spec.LeftOn) != 1 || !keepsLeft(j.spec.How) {
		return rangeJoin{}
	}
	lb := j.left.Partitioning().bounds[j.spec.LeftOn[0]]
	rb := r.Partitioning().bounds[j.spec.RightOn[0]]
	if len(lb) != j.left.Npartitions() || !ordered(lb) || len(rb) == 0 || len(rb) > 1 && !ordered(rb) || len(rb) > len(lb) {
		return rangeJoin{}
	}
	if b := Estimate(r).Bytes; b >= 0 && b < MinRangeJoin {
		return rangeJoin{}
	}
	key := j.spec.RightOn[0]
	whole, read := r.scanned(r.pred, nil), int64(0)
	for _, b := range lb {
		read += r.scanned(expr.And(r.pred, rangeOf(key, b)), &keySpan{key, b})
	}
	if read > 2*whole {
		return rangeJoin{}
	}
	return rangeJoin{right: r, bounds: lb, ok: true}
}

// keySpan is a range of a key column's values.
type keySpan struct {
	col string
	keyRange
}

// share is the bytes of p a read of the rows within s decodes: all of
// them, or where a page index bounds the column, the share of the piece's
// span of it that s covers (its pages outside are skipped).
func (s *keySpan) share(p piece) int64 {
	if s == nil {
		return p.bytes
	}
	r := p.ranges[s.col]
	lo, ok1 := r.Min.(int64)
	hi, ok2 := r.Max.(int64)
	if !r.Paged || !ok1 || !ok2 || hi <= lo {
		return p.bytes
	}
	in := float64(min(hi, s.hi)) - float64(max(lo, s.lo)) + 1
	return int64(float64(p.bytes) * max(0, min(1, in/(float64(hi)-float64(lo)+1))))
}

// rangeOf is the predicate that keeps the right rows a left partition of
// keys within r may meet: lo <= col <= hi, or null where the partition may
// have null keys (null keys meet).
func rangeOf(col string, r keyRange) *expr.Node {
	c := expr.Col(col)
	in := expr.And(expr.Call(">=", c, expr.Lit(r.lo)), expr.Call("<=", c, expr.Lit(r.hi)))
	if r.nulls {
		in = or(in, expr.Call("isnull", c))
	}
	return in
}

// MinRangeJoin is the least right side joined by key ranges: a smaller one
// is broadcast, read once. A variable for tests.
var MinRangeJoin int64 = 8 << 20

// maxBroadcast is the largest side broadcast for being small beside the
// other (BroadcastBytes may choose larger).
const maxBroadcast = 256 << 20

func (j *join) Npartitions() int {
	switch j.strategy() {
	case joinBroadcastRight, joinPartitioned, joinRanges:
		return j.left.Npartitions()
	case joinBroadcastLeft:
		return j.right.Npartitions()
	case joinMarkLeft:
		return 1
	}
	return max(j.left.Npartitions(), j.right.Npartitions())
}

// rightKeyNames are the output names of the right side's own key columns
// (not shared with the left), or nil where one is not in the output.
func (j *join) rightKeyNames() []string {
	names := make([]string, len(j.spec.RightOn))
	for _, c := range j.spec.Cols {
		if c.Side == 1 && c.Key < 0 {
			if k := slices.Index(j.spec.RightOn, c.Src); k >= 0 {
				names[k] = c.Name
			}
		}
	}
	if slices.Contains(names, "") {
		return nil
	}
	return names
}

func (j *join) Partitioning() partitioning {
	switch j.strategy() {
	case joinShuffle, joinPartitioned:
		// Rows sit where their keys hash: the result is partitioned by the
		// key columns of the side every row has (either, for shared keys).
		how := j.spec.How
		keys := make([]string, len(j.spec.LeftOn))
		for _, c := range j.spec.Cols {
			switch {
			case c.Key >= 0:
				keys[c.Key] = c.Name
			case c.Side == 0 && keepsLeft(how):
				if k := slices.Index(j.spec.LeftOn, c.Src); k >= 0 {
					keys[k] = c.Name
				}
			case c.Side == 1 && how == kernel.Right:
				if k := slices.Index(j.spec.RightOn, c.Src); k >= 0 {
					keys[k] = c.Name
				}
			}
		}
		// An inner join's right keys, where kept, equal its left ones.
		var same []string
		if how == kernel.Inner {
			same = j.rightKeyNames()
		}
		switch {
		case !slices.Contains(keys, ""):
			return partitioning{hash: keys, same: same, n: j.Npartitions()}
		case same != nil:
			return partitioning{hash: same, n: j.Npartitions()}
		}
	case joinBroadcastRight, joinRanges:
		return j.left.Partitioning().keptBy(j.out)
	case joinBroadcastLeft:
		return j.right.Partitioning().keptBy(j.out)
	}
	return partitioning{}
}

func (j *join) explain() string {
	var on []string
	for i := range j.spec.LeftOn {
		on = append(on, fmt.Sprintf("%s = %s", j.spec.LeftOn[i], j.spec.RightOn[i]))
	}
	how := j.strategy()
	side := func(left bool) string {
		if left {
			return "left"
		}
		return "right"
	}
	if s, left := j.scan(); s != nil {
		how += "; each " + side(left) + " partition read with a filter of the broadcast keys"
	} else if f, left := j.filtered(); f != nil {
		how += "; each " + side(left) + " partition filtered with a filter of the broadcast keys too"
	}
	return fmt.Sprintf("join %s on %s (%s)", j.spec.How, strings.Join(on, ", "), how)
}

// scan returns the probe side of a broadcast join whose partitions the
// join's tasks read themselves, each with the broadcast side's filter of
// its keys as one of the reader's filters (joinScanOp), and whether it is
// the left side; nil where the probe side's own tasks read it. It is a
// file read by a reader that tests filters as it decodes (Parquet), on
// one integer key, in more partitions than join their broadcast side on
// tables of their own (flipParts), of a join that drops the probe rows no
// build row matches: an inner join, or a semi join probing its left.
// Spark's runtime filters and DuckDB's join filter pushdown do as much.
// Its tasks wait for the broadcast side, where its own reads would not:
// it is read so only where it has no filter of its own (which already
// keeps the reader from building the rows it drops) or the broadcast side
// is held already (nothing to wait for: q3's late lines, sifted by the
// early orders of the building segment, take 8-10% less CPU), is at least
// minScanRatio times the broadcast side's bytes, and the broadcast side is
// a read (whose tasks run beside the first of the probe side's), held
// already (adaptive joins' sides, as SQL's q18's large orders), or the end
// of other steps at most 1/tinyScanRatio of the probe side (whose wait is
// short). At SF10 that takes TPC-H's q17 from 0.66 to 0.52 s and q8 and
// q9 by 5-10%, where q2, waiting for its European suppliers (a join of
// three reads, then an eighth of its part suppliers), took 0.08 s more,
// and q20 and q21, whose lines are filtered by date, 7-13%; q11's part
// suppliers sifted by Germany's suppliers (a 64th of them) take 0.22-0.26
// s against 0.28-0.35.
func (j *join) scan() (*Source, bool) {
	probe, build, key, left := j.broadcastProbe()
	s, ok := probe.(*Source)
	if !ok || !filtersRead(s.op) {
		return nil, false
	}
	held, ok := j.mayWait(s, build, key)
	if !ok || selective(s.pred) && !held {
		return nil, false
	}
	return s, left
}

// filtered returns the probe side of a broadcast join that is a filter
// whose partitions the join's tasks filter themselves (joinFilterOp), the
// broadcast side's filter of the probe keys asked of the rows its
// predicate keeps before they are copied, and whether it is the left
// side; nil where the filter's own tasks run. As scan, for a filter not
// read by a reader: of held partitions, as loaded tables are (TPC-H q7's
// two years of lines, 30% of them, copied before its French and German
// suppliers kept a twelfth of those).
func (j *join) filtered() (*filter, bool) {
	probe, build, key, left := j.broadcastProbe()
	f, ok := probe.(*filter)
	if !ok {
		return nil, false
	}
	if _, ok := j.mayWait(f, build, key); !ok {
		return nil, false
	}
	return f, left
}

// broadcastProbe returns the probe side of a broadcast join that drops the
// probe rows no build row matches (an inner join, or a semi join probing
// its left), on one key: the probe side, the broadcast side, the probe's
// key and whether the probe is the left side; nil where there is none.
func (j *join) broadcastProbe() (probe, build Node, key string, left bool) {
	if len(j.spec.LeftOn) != 1 {
		return nil, nil, "", false
	}
	switch how := j.spec.How; j.strategy() {
	case joinBroadcastRight:
		if how != kernel.Inner && how != kernel.Semi {
			return nil, nil, "", false
		}
		probe, build, key, left = j.left, j.right, j.spec.LeftOn[0], true
	case joinBroadcastLeft:
		if how != kernel.Inner {
			return nil, nil, "", false
		}
		probe, build, key = j.right, j.left, j.spec.RightOn[0]
	default:
		return nil, nil, "", false
	}
	if p, ok := build.(*project); ok {
		build = p.child
	}
	return probe, build, key, left
}

// mayWait reports whether the tasks of probe, an integer key's side, may
// wait for the broadcast side to test their rows by its keys' filter: in
// more partitions than join their broadcast side on tables of their own
// (flipParts), at least minScanRatio times the broadcast side's bytes, and
// the broadcast side a read, held already (held), or the end of other
// steps at most 1/tinyScanRatio of the probe side.
func (j *join) mayWait(probe, build Node, key string) (held, ok bool) {
	if probe.Npartitions() <= exchange.FlipParts {
		return false, false
	}
	ps, bs := Estimate(probe), Estimate(build)
	if ps.Bytes < 0 || bs.Bytes < 0 || ps.Bytes < minScanRatio*bs.Bytes {
		return false, false
	}
	switch build.(type) {
	case *Source:
	case *Persisted:
		held = true
	default:
		if ps.Bytes < tinyScanRatio*bs.Bytes {
			return false, false
		}
	}
	if f, ok := probe.Schema().FieldsByName(key); !ok || len(f) != 1 || !arrow.IsInteger(f[0].Type.ID()) {
		return false, false
	}
	return held, true
}

// minScanRatio is how many times the broadcast side's bytes a probe side
// read with its filter is at least.
const minScanRatio = 8

// tinyScanRatio is how many times the bytes of a broadcast side that is the
// end of other steps a probe side read with its filter is at least.
const tinyScanRatio = 64

// scanTasks are the join's tasks that each read a partition of the probe
// side s themselves, with the broadcast side built (see scan).
func (j *join) scanTasks(l *Lowering, s *Source, built graph.Key, args []byte, probeLeft bool) []graph.Key {
	key := j.spec.RightOn[0]
	if probeLeft {
		key = j.spec.LeftOn[0]
	}
	out := make([]graph.Key, 0, s.Npartitions())
	for i, part := range s.taskArgs() {
		k := graph.Part(j.tok, i)
		a := ops.MustJSON(exchange.JoinScanArgs{Join: args, Read: s.op, Part: part, Key: key, ProbeLeft: probeLeft})
		l.G.Add(&graph.Task{Key: k, Op: exchange.OpJoinScan, Args: a, Inputs: []graph.Key{built}})
		out = append(out, k)
	}
	return out
}

// filterTasks are the join's tasks that each filter a partition of the
// probe side f, whose input partitions are parts, with the broadcast side
// built (see filtered).
func (j *join) filterTasks(l *Lowering, f *filter, parts []graph.Key, built graph.Key, args []byte, probeLeft bool) []graph.Key {
	key := j.spec.RightOn[0]
	if probeLeft {
		key = j.spec.LeftOn[0]
	}
	a := ops.MustJSON(exchange.JoinFilterArgs{Join: args, Filter: ops.FilterArgs{Expr: f.pred, Keep: f.keep}, Key: key, ProbeLeft: probeLeft})
	out := make([]graph.Key, len(parts))
	for i, p := range parts {
		out[i] = graph.Part(j.tok, i)
		l.G.Add(&graph.Task{Key: out[i], Op: exchange.OpJoinFilter, Args: a, Inputs: []graph.Key{built, p}})
	}
	return out
}

// Size is what a step is expected to hold: its bytes (the files read, or
// the memory of persisted partitions) and its rows, each -1 where unknown.
type Size struct{ Bytes, Rows int64 }

// unknownSize is the size of a step nothing is known of.
var unknownSize = Size{-1, -1}

// Estimate guesses a step's size from what it reads. Filters are taken to
// keep every row; a join to hold both sides' bytes and the larger side's
// rows (each row of the larger meeting one of the smaller, as a fact meets
// its dimension).
func Estimate(n Node) Size {
	switch n := n.(type) {
	case *Source:
		return Size{share(n.Bytes, n.out, n.full), n.rows}
	case *Persisted:
		return Size{n.Bytes, n.Rows}
	case *combined:
		return Size{n.bytes, -1} // the groups' states: at least their results
	case *project:
		s := Estimate(n.child)
		return Size{share(s.Bytes, n.out, n.child.Schema()), s.Rows}
	case *join:
		l, r := Estimate(n.left), Estimate(n.right)
		switch {
		case n.spec.How == kernel.Semi || n.spec.How == kernel.Anti:
			return l
		case l.Bytes < 0 || r.Bytes < 0:
			return unknownSize
		case l.Rows < 0 || r.Rows < 0:
			return Size{l.Bytes + r.Bytes, -1}
		}
		return Size{l.Bytes + r.Bytes, max(l.Rows, r.Rows)}
	case *filter:
		s := Estimate(n.child)
		return Size{share(s.Bytes, n.out, n.child.Schema()), s.Rows}
	case *assign, *dedup, *hashShuffle, *repartition, *renaming:
		return Estimate(n.children()[0])
	}
	return unknownSize
}

// share is the part of bytes, the size of columns all, that the columns
// out hold, counting columns alike.
func share(bytes int64, out, all *arrow.Schema) int64 {
	if bytes < 0 {
		return -1
	}
	return bytes * int64(out.NumFields()) / int64(max(1, all.NumFields()))
}
