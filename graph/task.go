package graph

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Key names one task and its result: a readable prefix, a token and, for a
// partition of a collection, its index, as in "groupby-sum-3f9a1c0b7d2e4a91-7".
type Key string

// Prefix is the key without its tokens and indexes ("groupby-sum" of
// "groupby-sum-3f9a1c0b7d2e4a91-7", "array-sum-combine0" of
// "array-sum-c19c21546808a5c3-combine0-0"): the name of the work its tasks
// do, the same across graphs, by which the scheduler pools durations and
// progress bars and the dashboard name kinds of task (as Dask's key_split).
func (k Key) Prefix() string {
	s := string(k)
	kept := 0 // s[:kept] is the prefix while no word was dropped before a kept one
	var b []byte
	for start, first := 0, true; start <= len(s); first = false {
		end := strings.IndexByte(s[start:], '-')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		w := s[start:end]
		switch {
		case !first && (isDecimal(w) || isToken(w)):
		case b != nil:
			b = append(append(b, '-'), w...)
		case first || start == kept+1:
			kept = end
		default:
			b = append(append([]byte(s[:kept]), '-'), w...)
		}
		start = end + 1
	}
	switch {
	case b != nil:
		return string(b)
	case kept == 0:
		return s
	}
	return s[:kept]
}

// Partition is the index of the partition k names, for a key of the form
// prefix-token-index; false for any other key.
func (k Key) Partition() (int, bool) {
	s := string(k)
	j := strings.LastIndexByte(s, '-')
	if j <= 0 || !isDecimal(s[j+1:]) {
		return 0, false
	}
	t := strings.LastIndexByte(s[:j], '-')
	if t <= 0 || !isToken(s[t+1:j]) {
		return 0, false
	}
	i, err := strconv.Atoi(s[j+1:])
	return i, err == nil
}

func isDecimal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isToken(s string) bool {
	if len(s) != tokenLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Part returns the key of partition i of the collection named name.
func Part(name string, i int) Key {
	return Key(name + "-" + strconv.Itoa(i))
}

// Resources is what a task needs while it runs, or what a worker offers:
// "cpu" (threads), "memory" (bytes), "GPU" (devices) or any name a user
// gives. A task with no resources needs one thread.
type Resources map[string]float64

// Needs is what a step's tasks ask of the worker that runs them, held for as
// long as each runs: threads, memory in bytes, GPUs, and any resource that
// workers offer by name (Metaflow's @resources). Zero fields ask nothing.
type Needs struct {
	CPU    float64
	Memory int64
	GPU    float64
	Custom map[string]float64
}

// Resources is n as a task's resources; nil when n asks nothing.
func (n Needs) Resources() Resources {
	var r Resources
	set := func(name string, v float64) {
		if v > 0 {
			if r == nil {
				r = Resources{}
			}
			r[name] = v
		}
	}
	set("cpu", n.CPU)
	set("memory", float64(n.Memory))
	set("GPU", n.GPU)
	for name, v := range n.Custom {
		set(name, v)
	}
	return r
}

// With is r with the amounts of o added or replaced; r is not changed.
func (r Resources) With(o Resources) Resources {
	if len(o) == 0 {
		return r
	}
	out := make(Resources, len(r)+len(o))
	for n, v := range r {
		out[n] = v
	}
	for n, v := range o {
		out[n] = v
	}
	return out
}

// String lists the resources sorted by name, as "GPU=1, memory=2e+09".
func (r Resources) String() string {
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(formatAmount(r[n]))
	}
	return b.String()
}

func formatAmount(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Equal reports whether r and o ask for the same amounts.
func (r Resources) Equal(o Resources) bool {
	if len(r) != len(o) {
		return false
	}
	for n, v := range r {
		if w, ok := o[n]; !ok || w != v {
			return false
		}
	}
	return true
}

// FusedOp is the operation of a task made by Fuse: it runs Chain in order.
const FusedOp = "fused"

// Task is one unit of work: run the registered operation Op on Args and the
// values of Inputs, and keep the result under Key. Tasks are plain data, so
// they travel to other processes and their keys can be derived from them.
type Task struct {
	Key       Key
	Op        string
	Args      []byte
	Inputs    []Key
	Resources Resources
	// Chain holds the tasks a fused task runs, in order; the last has this
	// task's Key. Inputs then lists the keys the chain needs from outside.
	Chain []*Task
	// Shuffle marks a task of a peer-to-peer shuffle; nil for others.
	Shuffle *Shuffle
	// Needs names what the worker's binary must have registered beside Op
	// (a bag function, "bag:name"): in a pool of workers of several
	// binaries the task goes to one that announced them.
	Needs []string
	// Combine marks a task over a group of partitions whose members depend
	// on how many partitions there are (a level of a tree reduction, a
	// repartition): its result never belongs to one datum, even when its
	// group has one member. The incremental cache reads it before a graph
	// is submitted; it does not travel to the cluster.
	Combine bool
}

// Shuffle is a task's part in a peer-to-peer shuffle (DESIGN §7): each
// transfer splits its input by output partition and pushes the pieces to
// the workers that will assemble the outputs; the barrier completes once
// every transfer has; each unpack assembles one output partition from the
// pieces pushed to its worker. A shuffle has one or two sides (the two
// tables of a join), whose pieces of an output meet in one unpack.
type Shuffle struct {
	ID      string      // the shuffle's name, shared by its tasks
	Role    ShuffleRole // what this task does in it
	Outputs int         // the number of output partitions
	// Side and Source number a transfer: its side, and its input among
	// that side's transfers.
	Side, Source int
	// Part is an unpack's output partition.
	Part int
	// Sources counts the transfers of each side: an unpack checks that it
	// has pieces from all of them.
	Sources []int
	// Merge, on a transfer, names an operation that combines pieces of one
	// output into one piece of their kind (arguments MergeArgs): the worker
	// assembling the output combines them as they arrive, so that it holds
	// a few combined pieces rather than every one (an aggregation's states
	// over many groups). Empty: the pieces are kept as they come.
	Merge     string
	MergeArgs []byte
}

// ShuffleRole is what a task does in its shuffle.
type ShuffleRole uint8

const (
	Transfer ShuffleRole = iota + 1
	Barrier
	Unpack
)

var roleNames = [...]string{Transfer: "transfer", Barrier: "barrier", Unpack: "unpack"}

func (r ShuffleRole) String() string { return roleNames[r] }

func (t *Task) String() string {
	var b strings.Builder
	b.WriteString(string(t.Key))
	b.WriteString(" = ")
	t.writeCall(&b)
	if len(t.Resources) > 0 {
		fmt.Fprintf(&b, " [%s]", t.Resources)
	}
	return b.String()
}

func (t *Task) writeCall(b *strings.Builder) {
	if t.Op == FusedOp {
		b.WriteString("fused{")
		for i, c := range t.Chain {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(string(c.Key))
			b.WriteString(" = ")
			c.writeCall(b)
		}
		b.WriteString("}")
		return
	}
	b.WriteString(t.Op)
	b.WriteByte('(')
	for i, in := range t.Inputs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(in))
	}
	b.WriteByte(')')
}

func (k Key) String() string { return string(k) }
