package bag

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/cespare/xxhash/v2"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// SplitEvery is how many partial results a task of a tree reduction
// combines (Dask's split_every).
const SplitEvery = 8

// Number is what Sum and Mean add up.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// tree adds a tree reduction of parts to g: partialOp on each partition,
// then combineOp on up to SplitEvery results at a time until one is left
// (one combine with no inputs for a bag without partitions). It returns the
// final key.
func tree(g *graph.Graph, prefix string, parts []graph.Key, partialOp, combineOp string, args []byte, needs ...string) graph.Key {
	name := graph.Name(prefix+"-partial", partialOp, args, string(graph.Name("", "", nil, keyStrings(parts)...)))
	level := make([]graph.Key, len(parts))
	for i, p := range parts {
		level[i] = graph.Part(name, i)
		g.Add(&graph.Task{Key: level[i], Op: partialOp, Args: args, Inputs: []graph.Key{p}, Needs: needs})
	}
	for depth := 0; len(level) != 1 || depth == 0; depth++ {
		cname := graph.Name(fmt.Sprintf("%s-combine-%d", prefix, depth), combineOp, args, name)
		var next []graph.Key
		for lo := 0; lo < len(level) || lo == 0; lo += SplitEvery {
			k := graph.Part(cname, len(next))
			g.Add(&graph.Task{Key: k, Op: combineOp, Args: args, Inputs: level[lo:min(lo+SplitEvery, len(level))], Combine: true, Needs: needs})
			next = append(next, k)
		}
		level = next
	}
	return level[0]
}

func keyStrings(keys []graph.Key) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = string(k)
	}
	return out
}

// reducer is a tree reduction over partitions of T with partial results P.
type reducer[T, P any] struct {
	kind    string // unique with T: names the operations
	partial func(args []byte, in []T) (P, error)
	combine func(args []byte, ps []P) (P, error)
}

// reduce builds r's tree over b and returns the graph and final key.
func reduce[T, P any](b *Bag[T], r reducer[T, P], args []byte) (*graph.Graph, graph.Key, error) {
	if b.err != nil {
		return nil, "", b.err
	}
	registerCodec[P]()
	base := "bag-" + r.kind + ":" + typeName[T]()
	pop := ensureOp(base+"-partial", func() registry.Op {
		return func(tc *registry.Context, raw []byte, inputs []any) (any, error) {
			in, err := part[T](inputs[0])
			if err != nil {
				return nil, fmt.Errorf("%s: partition %s: %w", base, tc.Part(), err)
			}
			p, err := r.partial(raw, in)
			if err != nil {
				return nil, fmt.Errorf("%s: partition %s: %w", base, tc.Part(), err)
			}
			return p, nil
		}
	})
	cop := ensureOp(base+"-combine", func() registry.Op {
		return func(_ *registry.Context, raw []byte, inputs []any) (any, error) {
			ps := make([]P, len(inputs))
			for i, v := range inputs {
				p, ok := v.(P)
				if !ok {
					return nil, fmt.Errorf("%s: input %d is a %T, not a %T", base, i, v, p)
				}
				ps[i] = p
			}
			return r.combine(raw, ps)
		}
	})
	g := graph.New()
	g.Merge(b.g)
	return g, tree(g, "bag-"+r.kind, b.keys, pop, cop, args), nil
}

func scalar[T, P, R any](b *Bag[T], r reducer[T, P], args []byte, finish func(P) (R, error)) *Scalar[R] {
	g, k, err := reduce(b, r, args)
	if err != nil {
		return &Scalar[R]{err: err}
	}
	return &Scalar[R]{g: g, key: k, finish: func(v any) (R, error) {
		p, ok := v.(P)
		if !ok {
			var zero R
			return zero, fmt.Errorf("bag: %s holds a %T, not a %T", k, v, p)
		}
		return finish(p)
	}}
}

// single is a one-partition bag whose partition is a reduction's result.
func single[Out, T any](b *Bag[T], r reducer[T, []Out], args []byte) *Bag[Out] {
	g, k, err := reduce(b, r, args)
	if err != nil {
		return failed[Out](err)
	}
	return &Bag[Out]{g: g, keys: []graph.Key{k}, name: string(k)}
}

func same[P any](p P) (P, error) { return p, nil }

// Count is the number of items.
func (b *Bag[T]) Count() *Scalar[int64] {
	return scalar(b, reducer[T, int64]{kind: "count",
		partial: func(_ []byte, in []T) (int64, error) { return int64(len(in)), nil },
		combine: func(_ []byte, ps []int64) (int64, error) {
			var n int64
			for _, p := range ps {
				n += p
			}
			return n, nil
		}}, nil, same[int64])
}

// Sum adds the items up; 0 for an empty bag.
func Sum[T Number](b *Bag[T]) *Scalar[T] {
	add := func(_ []byte, in []T) (T, error) {
		var s T
		for _, x := range in {
			s += x
		}
		return s, nil
	}
	return scalar(b, reducer[T, T]{kind: "sum", partial: add, combine: add}, nil, same[T])
}

// Opt is a value that may be missing: a partial Min or Max.
type Opt[T any] struct {
	V  T
	Ok bool
}

func extreme[T cmp.Ordered](b *Bag[T], kind string, better func(a, b T) bool) *Scalar[T] {
	return scalar(b, reducer[T, Opt[T]]{kind: kind,
		partial: func(_ []byte, in []T) (Opt[T], error) {
			var o Opt[T]
			for _, x := range in {
				if !o.Ok || better(x, o.V) {
					o = Opt[T]{V: x, Ok: true}
				}
			}
			return o, nil
		},
		combine: func(_ []byte, ps []Opt[T]) (Opt[T], error) {
			var o Opt[T]
			for _, p := range ps {
				if p.Ok && (!o.Ok || better(p.V, o.V)) {
					o = p
				}
			}
			return o, nil
		}}, nil, func(o Opt[T]) (T, error) {
		if !o.Ok {
			return o.V, fmt.Errorf("bag: %s: %w", kind, ErrEmpty)
		}
		return o.V, nil
	})
}

// Min is the least item; ErrEmpty for an empty bag. NaNs compare as
// cmp.Less says (less than everything).
func Min[T cmp.Ordered](b *Bag[T]) *Scalar[T] {
	return extreme(b, "min", func(a, b T) bool { return cmp.Less(a, b) })
}

// Max is the greatest item; ErrEmpty for an empty bag.
func Max[T cmp.Ordered](b *Bag[T]) *Scalar[T] {
	return extreme(b, "max", func(a, b T) bool { return cmp.Less(b, a) })
}

// MeanAcc is a partial mean.
type MeanAcc struct {
	Sum float64
	N   int64
}

// Mean is the items' average as a float64; ErrEmpty for an empty bag.
func Mean[T Number](b *Bag[T]) *Scalar[float64] {
	return scalar(b, reducer[T, MeanAcc]{kind: "mean",
		partial: func(_ []byte, in []T) (MeanAcc, error) {
			var m MeanAcc
			for _, x := range in {
				m.Sum += float64(x)
			}
			m.N = int64(len(in))
			return m, nil
		},
		combine: func(_ []byte, ps []MeanAcc) (MeanAcc, error) {
			var m MeanAcc
			for _, p := range ps {
				m.Sum += p.Sum
				m.N += p.N
			}
			return m, nil
		}}, nil, func(m MeanAcc) (float64, error) {
		if m.N == 0 {
			return math.NaN(), fmt.Errorf("bag: mean: %w", ErrEmpty)
		}
		return m.Sum / float64(m.N), nil
	})
}

// MomentsAcc is a partial variance: the count, mean and sum of squared
// deviations from the mean (M2) of the items folded in.
type MomentsAcc struct {
	N        int64
	Mean, M2 float64
}

// moments is the reducer of Var and Std: each partition's moments in two
// passes, merged by Chan et al.'s formula, kernel.MergeMoments, the one
// the kernel's aggregation table merges Var and Std with.
func moments[T Number]() reducer[T, MomentsAcc] {
	return reducer[T, MomentsAcc]{kind: "moments",
		partial: func(_ []byte, in []T) (MomentsAcc, error) {
			m := MomentsAcc{N: int64(len(in))}
			if m.N == 0 {
				return m, nil
			}
			for _, x := range in {
				m.Mean += float64(x)
			}
			m.Mean /= float64(m.N)
			for _, x := range in {
				d := float64(x) - m.Mean
				m.M2 += d * d
			}
			return m, nil
		},
		combine: func(_ []byte, ps []MomentsAcc) (MomentsAcc, error) {
			var m MomentsAcc
			for _, p := range ps {
				if p.N == 0 {
					continue
				}
				m.Mean, m.M2 = kernel.MergeMoments(float64(m.N), m.Mean, m.M2, float64(p.N), p.Mean, p.M2)
				m.N += p.N
			}
			return m, nil
		}}
}

// Var is the items' variance with ddof degrees of freedom taken off the
// count, as Dask's Bag.var: 0 the population's, 1 the sample's; ErrEmpty
// for an empty bag, NaN where the items are no more than ddof.
func Var[T Number](b *Bag[T], ddof int) *Scalar[float64] {
	return scalar(b, moments[T](), nil, func(m MomentsAcc) (float64, error) { return variance("var", m, ddof) })
}

// Std is the square root of Var.
func Std[T Number](b *Bag[T], ddof int) *Scalar[float64] {
	return scalar(b, moments[T](), nil, func(m MomentsAcc) (float64, error) {
		v, err := variance("std", m, ddof)
		return math.Sqrt(v), err
	})
}

func variance(what string, m MomentsAcc, ddof int) (float64, error) {
	switch {
	case m.N == 0:
		return math.NaN(), fmt.Errorf("bag: %s: %w", what, ErrEmpty)
	case m.N <= int64(ddof):
		return math.NaN(), nil
	}
	return m.M2 / float64(m.N-int64(ddof)), nil
}

// Frequencies counts each distinct item, as a bag of one partition of
// (item, count) pairs in the order items first appear. It is a tree
// reduction, as Dask's: fine while the distinct items fit one worker.
func Frequencies[T comparable](b *Bag[T]) *Bag[Pair[T, int64]] {
	merge := func(_ []byte, ps [][]Pair[T, int64]) ([]Pair[T, int64], error) {
		index := map[T]int{}
		out := []Pair[T, int64]{}
		for _, p := range ps {
			for _, kv := range p {
				i, ok := index[kv.Key]
				if !ok {
					index[kv.Key] = len(out)
					out = append(out, kv)
					continue
				}
				out[i].Value += kv.Value
			}
		}
		return out, nil
	}
	return single(b, reducer[T, []Pair[T, int64]]{kind: "frequencies",
		partial: func(_ []byte, in []T) ([]Pair[T, int64], error) {
			index := map[T]int{}
			out := []Pair[T, int64]{}
			for _, x := range in {
				i, ok := index[x]
				if !ok {
					i = len(out)
					index[x] = i
					out = append(out, Pair[T, int64]{Key: x})
				}
				out[i].Value++
			}
			return out, nil
		},
		combine: merge}, nil)
}

// Distinct keeps one of each distinct item, in the order they first
// appear, in one partition (a tree reduction, as Dask's).
func Distinct[T comparable](b *Bag[T]) *Bag[T] {
	dedup := func(parts [][]T) []T {
		seen := map[T]bool{}
		out := []T{}
		for _, p := range parts {
			for _, x := range p {
				if !seen[x] {
					seen[x] = true
					out = append(out, x)
				}
			}
		}
		return out
	}
	return single(b, reducer[T, []T]{kind: "distinct",
		partial: func(_ []byte, in []T) ([]T, error) { return dedup([][]T{in}), nil },
		combine: func(_ []byte, ps [][]T) ([]T, error) { return dedup(ps), nil }}, nil)
}

type topKArgs struct {
	K int `json:"k"`
}

// TopK is the k greatest items, greatest first, in one partition.
func TopK[T cmp.Ordered](b *Bag[T], k int) *Bag[T] {
	top := func(raw []byte, parts [][]T) ([]T, error) {
		var a topKArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("topk: decode arguments: %w", err)
		}
		out := []T{}
		for _, p := range parts {
			out = append(out, p...)
		}
		slices.SortStableFunc(out, func(x, y T) int { return cmp.Compare(y, x) })
		return out[:min(len(out), max(a.K, 0))], nil
	}
	return single(b, reducer[T, []T]{kind: "topk",
		partial: func(raw []byte, in []T) ([]T, error) { return top(raw, [][]T{in}) },
		combine: top}, mustJSON(topKArgs{K: k}))
}

// Reduction is a tree reduction with registered functions, as Dask's
// Bag.reduction: perPartition turns each partition into a partial result,
// and aggregate combines up to SplitEvery partials at a time (also its own
// output, so it must be associative) until one is left. A bag without
// partitions gives aggregate of no partials.
func Reduction[T, P any](b *Bag[T], perPartition Func[[]T, P], aggregate Func[[]P, P]) *Scalar[P] {
	if b.err != nil {
		return &Scalar[P]{err: b.err}
	}
	registerCodec[P]()
	args := mustJSON(struct{ Part, Agg string }{perPartition.name, aggregate.name})
	g := graph.New()
	g.Merge(b.g)
	k := tree(g, "bag-reduction-"+perPartition.name, b.keys, opReducePart, opReduceAgg, args,
		funcNeed(perPartition.name), funcNeed(aggregate.name))
	return &Scalar[P]{g: g, key: k}
}

const (
	opReducePart = "bag-reduction-partial"
	opReduceAgg  = "bag-reduction-combine"
)

func init() {
	registry.Register(opReducePart, func(tc *registry.Context, raw []byte, inputs []any) (any, error) {
		var a struct{ Part, Agg string }
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s: decode arguments: %w", opReducePart, err)
		}
		e, err := lookup(a.Part)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opReducePart, err)
		}
		out, err := e.call(inputs[0])
		if err != nil {
			return nil, fmt.Errorf("%s %q on partition %s: %w", opReducePart, a.Part, tc.Part(), err)
		}
		return out, nil
	})
	registry.Register(opReduceAgg, func(tc *registry.Context, raw []byte, inputs []any) (any, error) {
		var a struct{ Part, Agg string }
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s: decode arguments: %w", opReduceAgg, err)
		}
		e, err := lookup(a.Agg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opReduceAgg, err)
		}
		if e.callSlice == nil {
			return nil, fmt.Errorf("%s: function %q does not take a slice", opReduceAgg, a.Agg)
		}
		return e.callSlice(inputs)
	})
}

// hashOf hashes a key the same in every process (maphash's seeds differ):
// common types by their bytes, others by their printed form.
func hashOf(k any) uint64 {
	var buf [8]byte
	switch v := k.(type) {
	case string:
		return xxhash.Sum64String(v)
	case int:
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
	case int64:
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
	case int32:
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
	case uint64:
		binary.LittleEndian.PutUint64(buf[:], v)
	case float64:
		if v == 0 {
			v = 0 // -0 and 0 are one key
		}
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
	case bool:
		if v {
			buf[0] = 1
		}
	default:
		return xxhash.Sum64String(fmt.Sprintf("%T:%#v", k, k))
	}
	return xxhash.Sum64(buf[:])
}
