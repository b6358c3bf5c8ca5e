package bag

import (
	"encoding/json"
	"fmt"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
)

// slice is the k-th of "of" equal item ranges of an input partition.
type slice struct {
	Part int `json:"part"`
	K    int `json:"k"`
	Of   int `json:"of"`
}

// Repartition makes n partitions without a shuffle, items in the same
// order: runs of neighbouring partitions are concatenated (n fewer than the
// bag has), or each partition is cut into nearly equal slices (n more), as
// the dataframe's Repartition does. Partitions are balanced by count, not by
// items: a bag with very uneven partitions stays uneven.
func Repartition[T any](b *Bag[T], n int) *Bag[T] {
	op := repartitionOp[T]()
	if b.err != nil {
		return b
	}
	if n < 1 {
		return failed[T](fmt.Errorf("bag.Repartition(%d): the partition count must be at least 1", n))
	}
	outs := repartitionPlan(len(b.keys), n)
	name := graph.Name("bag-repartition", op, mustJSON(outs), b.name)
	g := graph.New()
	g.Merge(b.g)
	keys := make([]graph.Key, len(outs))
	for j, o := range outs {
		inputs := make([]graph.Key, len(o))
		for i, s := range o {
			inputs[i] = b.keys[s.Part]
		}
		keys[j] = graph.Part(name, j)
		g.Add(&graph.Task{Key: keys[j], Op: op, Args: mustJSON(o), Inputs: inputs})
	}
	return &Bag[T]{g: g, keys: keys, name: name}
}

// repartitionPlan says which slices of have partitions make each of n.
func repartitionPlan(have, n int) [][]slice {
	outs := make([][]slice, 0, n)
	if n <= have {
		for j := range n {
			var o []slice
			for i := j * have / n; i < (j+1)*have/n; i++ {
				o = append(o, slice{Part: i, Of: 1})
			}
			outs = append(outs, o)
		}
		return outs
	}
	for i := range have {
		k := (i+1)*n/have - i*n/have
		for s := range k {
			outs = append(outs, []slice{{Part: i, K: s, Of: k}})
		}
	}
	for len(outs) < n { // a bag without partitions: n empty ones
		outs = append(outs, nil)
	}
	return outs
}

func repartitionOp[T any]() string {
	name := "bag-repartition:" + typeName[T]()
	registerCodec[[]T]()
	return ensureOp(name, func() registry.Op {
		return func(tc *registry.Context, raw []byte, inputs []any) (any, error) {
			var slices []slice
			if err := json.Unmarshal(raw, &slices); err != nil {
				return nil, fmt.Errorf("%s: decode arguments: %w", name, err)
			}
			if len(slices) != len(inputs) {
				return nil, fmt.Errorf("%s: %d slices of %d inputs", name, len(slices), len(inputs))
			}
			cut := make([][]T, len(inputs))
			total := 0
			for i, v := range inputs {
				p, err := part[T](v)
				if err != nil {
					return nil, fmt.Errorf("%s: partition %s input %d: %w", name, tc.Part(), i, err)
				}
				s, m := slices[i], len(p)
				lo, hi := s.K*m/s.Of, (s.K+1)*m/s.Of
				cut[i] = p[lo:hi:hi] // capped: an append downstream copies
				total += hi - lo
			}
			if len(cut) == 1 && cut[0] != nil {
				return cut[0], nil
			}
			out := make([]T, 0, total)
			for _, c := range cut {
				out = append(out, c...)
			}
			return out, nil
		}
	})
}
