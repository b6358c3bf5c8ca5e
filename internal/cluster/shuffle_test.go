package cluster

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/worker/store"
)

// Merge operations over pieces that are []int64: one sums them (a piece
// shrinks as an aggregation's states do), one concatenates them in order
// (nothing shrinks, as where every row is its own group).
const (
	testMergeSum    = "test-shuffle-merge-sum"
	testMergeConcat = "test-shuffle-merge-concat"
)

func init() {
	registry.Register(testMergeSum, func(_ *registry.Context, _ []byte, inputs []any) (any, error) {
		var s int64
		for _, v := range inputs {
			for _, x := range v.([]int64) {
				s += x
			}
		}
		return []int64{s}, nil
	})
	registry.Register(testMergeConcat, func(_ *registry.Context, _ []byte, inputs []any) (any, error) {
		var out []int64
		for _, v := range inputs {
			out = append(out, v.([]int64)...)
		}
		return out, nil
	})
}

// TestShuffleMerge pushes the pieces of one output from sources in several
// orders and checks what the unpack gets: the pieces combined in a shape
// fixed by source order whatever the order they came in, no piece lost or
// counted twice, and nothing left in the store once consumed.
func TestShuffleMerge(t *testing.T) {
	const sources = 20 // two runs of mergeFanIn combined, four pieces left over
	piece := func(src int) []int64 {
		if src == 5 {
			return nil // an empty piece
		}
		return []int64{int64(src), int64(100 * src)}
	}
	var all []int64
	for src := range sources {
		all = append(all, piece(src)...)
	}
	var rest [][]int64 // sources after the two combined runs
	for src := 2 * mergeFanIn; src < sources; src++ {
		rest = append(rest, piece(src))
	}
	var sum int64
	for _, x := range all[:len(all)-2*len(rest)] {
		sum += x
	}
	orders := map[string]func([]int){
		"in order": func([]int) {},
		"reversed": slices.Reverse[[]int],
		"shuffled": func(s []int) { rand.New(rand.NewSource(1)).Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] }) },
	}
	cases := []struct {
		merge string
		want  [][]int64
	}{
		{testMergeSum, append([][]int64{{sum}}, rest...)},
		// The first run does not shrink, so combining stops after it.
		{testMergeConcat, append([][]int64{all[:2*(mergeFanIn-1)]}, func() [][]int64 {
			var ps [][]int64
			for src := mergeFanIn; src < sources; src++ {
				if p := piece(src); p != nil {
					ps = append(ps, p)
				}
			}
			return ps
		}()...)},
	}
	for _, c := range cases {
		for name, order := range orders {
			t.Run(c.merge+"/"+name, func(t *testing.T) {
				store := store.New(store.Config{})
				sh := newShuffles(context.Background(), store)
				srcs := make([]int, sources)
				for i := range srcs {
					srcs[i] = i
				}
				order(srcs)
				for _, src := range srcs {
					var v any
					if p := piece(src); p != nil {
						v = p
					}
					sh.receive(&protocol.ShufflePush{ID: "s", Run: 1, Source: src, Parts: []int{0},
						Values: []any{v}, Merge: c.merge})
				}
				run := &protocol.ShuffleRun{ID: "s", Run: 1}
				got, keys, err := sh.pieces(run, &graph.Shuffle{Part: 0, Sources: []int{sources}})
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got[0]) != fmt.Sprint(c.want) {
					t.Errorf("pieces %v, want %v", got[0], c.want)
				}
				if store.Len() != len(c.want) {
					t.Errorf("the store holds %d values, want %d", store.Len(), len(c.want))
				}
				releaseAll(got)
				sh.consumed(run, 0, keys)
				if store.Len() != 0 {
					t.Errorf("the store holds %d values once consumed", store.Len())
				}
			})
		}
	}
}
