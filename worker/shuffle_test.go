package worker

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// TestShuffleMergeShape pushes the pieces of one output from sources in
// several orders, runs the merges the core asks for as a driver would (one
// sums the pieces, as an aggregation's states shrink; one concatenates
// them, as where every row is its own group), and checks what the unpack
// gets: pieces combined in a shape fixed by source order whatever the
// order they came in, none lost or counted twice, and nothing left in the
// store once the unpack has run.
func TestShuffleMergeShape(t *testing.T) {
	const sources = 20 // two runs of mergeFanIn combined, four sources left over
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
	merges := map[string]func([][]int64) []int64{
		"sum": func(in [][]int64) []int64 {
			var s int64
			for _, v := range in {
				for _, x := range v {
					s += x
				}
			}
			return []int64{s}
		},
		"concat": func(in [][]int64) []int64 { return slices.Concat(in...) },
	}
	orders := map[string]func([]int){
		"in order": func([]int) {},
		"reversed": slices.Reverse[[]int],
		"shuffled": func(s []int) { rand.New(rand.NewSource(1)).Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] }) },
	}
	var concatWant [][]int64 // the first run does not shrink, so combining stops after it
	concatWant = append(concatWant, all[:2*(mergeFanIn-1)])
	for src := mergeFanIn; src < sources; src++ {
		if p := piece(src); p != nil {
			concatWant = append(concatWant, p)
		}
	}
	cases := []struct {
		merge string
		want  [][]int64
	}{
		{"sum", append([][]int64{{sum}}, rest...)},
		{"concat", concatWant},
	}
	for _, c := range cases {
		for name, order := range orders {
			t.Run(c.merge+"/"+name, func(t *testing.T) {
				s := New(Config{ID: "me", NThreads: 1})
				store := map[graph.Key][]int64{}
				// drive carries out the core's instructions, merges included.
				var drive func()
				drive = func() {
					for _, in := range s.Outbox() {
						switch in.Kind {
						case Drop:
							for _, k := range in.Keys {
								delete(store, k)
							}
						case Merge:
							var vs [][]int64
							for _, k := range in.Merge.Inputs {
								vs = append(vs, store[k])
							}
							v := merges[in.Merge.Op](vs)
							store[in.Merge.Key] = v
							s.MergeDone(in.Merge, Size{Bytes: int64(8 * len(v)), Rows: int64(len(v))}, nil)
							drive()
						}
					}
					if err := s.Validate(); err != nil {
						t.Fatal(err)
					}
				}
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
					p := &protocol.ShufflePush{ID: "s", Run: 1, Source: src, Parts: []int{0}, Values: []any{v}, Merge: c.merge}
					for i, k := range s.ShufflePush(p, []Size{{Bytes: int64(8 * len(piece(src))), Rows: int64(len(piece(src)))}}) {
						if k != "" {
							store[k] = p.Values[i].([]int64)
						}
					}
					drive()
				}
				s.ComputeTask(&protocol.ComputeTask{
					Spec:    (&graph.Task{Key: "unpack", Op: "op", Shuffle: &graph.Shuffle{ID: "s", Role: graph.Unpack, Sources: []int{sources}}}).Spec(),
					Shuffle: &protocol.ShuffleRun{ID: "s", Run: 1, Workers: []protocol.WorkerID{"me"}}})
				out := s.Outbox()
				if len(out) != 1 || out[0].Kind != Execute {
					t.Fatalf("the unpack did not start: %v", out)
				}
				var got [][]int64
				for _, k := range out[0].Pieces[0] {
					got = append(got, store[k])
				}
				if fmt.Sprint(got) != fmt.Sprint(c.want) {
					t.Errorf("pieces %v, want %v", got, c.want)
				}
				if len(store) != len(c.want) {
					t.Errorf("the store holds %d values, want %d", len(store), len(c.want))
				}
				s.ExecuteDone("unpack", Ran{Nbytes: 8})
				drive()
				if len(store) != 0 {
					t.Errorf("the store holds %d values once the unpack ran", len(store))
				}
			})
		}
	}
}
