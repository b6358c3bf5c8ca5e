package bag

import (
	"encoding/json"
	"fmt"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
)

// Folder is a fold registered by name for FoldBy: a key of each item, a
// step that folds an item into its key's accumulator, and a combine that
// merges two accumulators of one key.
type Folder[T any, K comparable, A any] struct{ name string }

// RegisterFold registers a fold for FoldBy under name, as Register does
// (every binary that runs workers must register it; twice panics).
func RegisterFold[T any, K comparable, A any](name string, key func(T) K, binop func(A, T) A, combine func(A, A) A) Folder[T, K, A] {
	registerCodec[[]Pair[K, A]]()
	base := "bag-foldby:" + name
	type foldArgs struct{ Initial []byte }
	registry.Register(base+"-partial", func(tc *registry.Context, raw []byte, inputs []any) (any, error) {
		var a foldArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s: decode arguments: %w", base, err)
		}
		in, err := part[T](inputs[0])
		if err != nil {
			return nil, fmt.Errorf("%s: partition %s: %w", base, tc.Part(), err)
		}
		index := map[K]int{}
		out := []Pair[K, A]{}
		for _, x := range in {
			k := key(x)
			i, ok := index[k]
			if !ok {
				// Each key starts from its own copy of the initial value.
				init, err := decodeArg[A](a.Initial)
				if err != nil {
					return nil, fmt.Errorf("%s: decode initial value: %w", base, err)
				}
				i = len(out)
				index[k] = i
				out = append(out, Pair[K, A]{Key: k, Value: init})
			}
			out[i].Value = binop(out[i].Value, x)
		}
		return out, nil
	})
	registry.Register(base+"-combine", func(_ *registry.Context, _ []byte, inputs []any) (any, error) {
		index := map[K]int{}
		out := []Pair[K, A]{}
		for j, v := range inputs {
			ps, ok := v.([]Pair[K, A])
			if !ok {
				return nil, fmt.Errorf("%s: input %d is a %T, not a %T", base, j, v, ps)
			}
			for _, kv := range ps {
				i, ok := index[kv.Key]
				if !ok {
					index[kv.Key] = len(out)
					out = append(out, kv)
					continue
				}
				out[i].Value = combine(out[i].Value, kv.Value)
			}
		}
		return out, nil
	})
	return Folder[T, K, A]{name: name}
}

// FoldBy folds the items of each key, starting each key of each partition
// from initial, and merges the partitions' accumulators with the fold's
// combine: Dask's foldby(key, binop, initial, combine) without a separate
// combine_initial. Like Dask's, it is a tree reduction into one partition
// of (key, accumulator) pairs, in the order keys first appear: fine while
// the keys fit one worker.
func FoldBy[T any, K comparable, A any](b *Bag[T], f Folder[T, K, A], initial A) *Bag[Pair[K, A]] {
	if b.err != nil {
		return failed[Pair[K, A]](b.err)
	}
	enc, err := encodeArg(initial)
	if err != nil {
		return failed[Pair[K, A]](fmt.Errorf("bag.FoldBy %s: encode initial value: %w", f.name, err))
	}
	args := mustJSON(struct{ Initial []byte }{enc})
	g := graph.New()
	g.Merge(b.g)
	base := "bag-foldby:" + f.name
	k := tree(g, "bag-foldby-"+f.name, b.keys, base+"-partial", base+"-combine", args)
	return &Bag[Pair[K, A]]{g: g, keys: []graph.Key{k}, name: string(k)}
}

const (
	opGroupSplit  = "bag-groupby-split"
	opGroupUnpack = "bag-groupby-unpack"
)

type groupArgs struct {
	Func string `json:"func"`
	N    int    `json:"n"`
}

func init() {
	registry.Register(opGroupSplit, func(tc *registry.Context, raw []byte, inputs []any) (any, error) {
		var a groupArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s: decode arguments: %w", opGroupSplit, err)
		}
		e, err := lookup(a.Func)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opGroupSplit, err)
		}
		if e.splitPart == nil {
			return nil, fmt.Errorf("%s: function %q does not return a comparable key", opGroupSplit, a.Func)
		}
		s, err := e.splitPart(inputs[0], a.N)
		if err != nil {
			return nil, fmt.Errorf("%s %q on partition %s: %w", opGroupSplit, a.Func, tc.Part(), err)
		}
		return s, nil
	})
	registry.Register(opGroupUnpack, func(tc *registry.Context, raw []byte, inputs []any) (any, error) {
		var a groupArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%s: decode arguments: %w", opGroupUnpack, err)
		}
		e, err := lookup(a.Func)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", opGroupUnpack, err)
		}
		if e.groupPart == nil {
			return nil, fmt.Errorf("%s: function %q does not return a comparable key", opGroupUnpack, a.Func)
		}
		var pieces []any
		if tc != nil && tc.Pieces != nil {
			pieces = tc.Pieces[0]
		}
		out, err := e.groupPart(pieces)
		if err != nil {
			return nil, fmt.Errorf("%s %q on partition %s: %w", opGroupUnpack, a.Func, tc.Part(), err)
		}
		return out, nil
	})
}

// GroupBy gathers the items of each key (key's result, which must be
// comparable) into npartitions partitions (the bag's count if < 1) by a
// peer-to-peer hash shuffle (DESIGN §7). Each partition holds its keys'
// groups in the order keys first appear, items in partition order. Keys
// hash the same in every process: strings, integers, floats and bools by
// value, other types by their printed form.
func GroupBy[T any, K comparable](b *Bag[T], key Func[T, K], npartitions int) *Bag[Pair[K, []T]] {
	if b.err != nil {
		return failed[Pair[K, []T]](b.err)
	}
	if npartitions < 1 {
		npartitions = max(len(b.keys), 1)
	}
	registerCodec[[]Pair[K, []T]]()
	args := mustJSON(groupArgs{Func: key.name, N: npartitions})
	needs := []string{funcNeed(key.name)}
	g := graph.New()
	g.Merge(b.g)
	id := graph.Name("shuffle", opGroupUnpack, args, b.name)
	tname := graph.Name("shuffle-transfer", opGroupSplit, args, id)
	transfers := make([]graph.Key, len(b.keys))
	for i, p := range b.keys {
		transfers[i] = graph.Part(tname, i)
		g.Add(&graph.Task{Key: transfers[i], Op: opGroupSplit, Args: args, Inputs: []graph.Key{p}, Needs: needs,
			Shuffle: &graph.Shuffle{ID: id, Role: graph.Transfer, Outputs: npartitions, Source: i}})
	}
	barrier := graph.Part(graph.Name("shuffle-barrier", registry.BarrierOp, nil, id), 0)
	g.Add(&graph.Task{Key: barrier, Op: registry.BarrierOp, Inputs: transfers,
		Shuffle: &graph.Shuffle{ID: id, Role: graph.Barrier, Outputs: npartitions}})
	uname := graph.Name("bag-groupby-"+key.name, opGroupUnpack, args, id)
	keys := make([]graph.Key, npartitions)
	for j := range keys {
		keys[j] = graph.Part(uname, j)
		g.Add(&graph.Task{Key: keys[j], Op: opGroupUnpack, Args: args, Inputs: []graph.Key{barrier}, Needs: needs,
			Shuffle: &graph.Shuffle{ID: id, Role: graph.Unpack, Outputs: npartitions, Part: j, Sources: []int{len(b.keys)}}})
	}
	return &Bag[Pair[K, []T]]{g: g, keys: keys, name: uname}
}
