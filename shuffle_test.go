package dusk

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
)

// Test operations of a shuffle of numbers: sources make them, transfers
// split them by value modulo the outputs, unpacks gather and sort them.
var sourceRuns atomic.Int64

// shuffleGate holds the transfers of a gated shuffle.
var shuffleGate = newGate(0)

func init() {
	registry.Register("test-numbers", func(_ *registry.Context, args []byte, _ []any) (any, error) {
		sourceRuns.Add(1)
		var a struct{ From, N int }
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		out := make([]int64, a.N)
		for i := range out {
			out[i] = int64(a.From + i)
		}
		return out, nil
	})
	registry.Register("test-split", func(tc *registry.Context, args []byte, in []any) (any, error) {
		var a struct {
			Outputs int
			Gated   bool
		}
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, err
		}
		if a.Gated {
			shuffleGate.at()
		}
		parts := make([][]int64, a.Outputs)
		for _, v := range in[0].([]int64) {
			parts[v%int64(a.Outputs)] = append(parts[v%int64(a.Outputs)], v)
		}
		split := &registry.Split{Pieces: make([]any, a.Outputs)}
		for i, p := range parts {
			if p != nil {
				split.Pieces[i] = p
			}
		}
		return split, nil
	})
	registry.Register("test-collect", func(tc *registry.Context, _ []byte, _ []any) (any, error) {
		var out []int64
		for _, side := range tc.Pieces {
			for _, p := range side {
				out = append(out, p.([]int64)...)
			}
		}
		slices.Sort(out)
		return out, nil
	})
}

// numbersGraph makes sources partitions of per numbers each.
func numbersGraph(id string, sources, per int) (*graph.Graph, []graph.Key) {
	g := graph.New()
	var keys []graph.Key
	for i := 0; i < sources; i++ {
		args, _ := json.Marshal(map[string]int{"From": i * per, "N": per})
		k := graph.Part("numbers-"+id, i)
		g.Add(&graph.Task{Key: k, Op: "test-numbers", Args: args})
		keys = append(keys, k)
	}
	return g, keys
}

// shuffleGraph shuffles the partitions srcs into outputs partitions; g has
// the tasks that make them, if any.
func shuffleGraph(id string, g *graph.Graph, srcs []graph.Key, outputs int, gated bool) []graph.Key {
	sources := len(srcs)
	var transfers []graph.Key
	splitArgs, _ := json.Marshal(map[string]any{"Outputs": outputs, "Gated": gated})
	for i, src := range srcs {
		tk := graph.Part("transfer-"+id, i)
		g.Add(&graph.Task{Key: tk, Op: "test-split", Args: splitArgs, Inputs: []graph.Key{src},
			Shuffle: &graph.Shuffle{ID: id, Role: graph.Transfer, Outputs: outputs, Source: i}})
		transfers = append(transfers, tk)
	}
	barrier := graph.Key("barrier-" + id)
	g.Add(&graph.Task{Key: barrier, Op: registry.BarrierOp, Inputs: transfers,
		Shuffle: &graph.Shuffle{ID: id, Role: graph.Barrier, Outputs: outputs}})
	var outs []graph.Key
	for j := 0; j < outputs; j++ {
		k := graph.Part("unpack-"+id, j)
		g.Add(&graph.Task{Key: k, Op: "test-collect", Inputs: []graph.Key{barrier},
			Shuffle: &graph.Shuffle{ID: id, Role: graph.Unpack, Outputs: outputs, Part: j, Sources: []int{sources}}})
		outs = append(outs, k)
	}
	return outs
}

func checkShuffled(t *testing.T, values []any, sources, per, outputs int) {
	t.Helper()
	total := 0
	for j, v := range values {
		nums := v.([]int64)
		for i, x := range nums {
			if x%int64(outputs) != int64(j) || i > 0 && nums[i-1] >= x {
				t.Fatalf("output %d holds %d (or is not sorted)", j, x)
			}
		}
		total += len(nums)
	}
	if total != sources*per {
		t.Fatalf("%d numbers came out of %d", total, sources*per)
	}
}

func TestShuffle(t *testing.T) {
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprint(workers, " workers"), func(t *testing.T) {
			c := newTestClient(t, Workers(workers), ThreadsPerWorker(2))
			ctx := testCtx(t, c)
			g, srcs := numbersGraph(fmt.Sprint("s", workers), 10, 1000)
			outs := shuffleGraph(fmt.Sprint("s", workers), g, srcs, 7, false)
			values, err := c.Compute(ctx, g, outs)
			if err != nil {
				t.Fatal(err)
			}
			checkShuffled(t, values, 10, 1000, 7)
		})
	}
}

// A worker lost while the shuffle runs: the shuffle starts again on the
// others, and of its persisted input only what the lost worker held is
// computed again.
func TestShuffleSurvivesWorkerLoss(t *testing.T) {
	c := newTestClient(t, Workers(3), ThreadsPerWorker(1))
	ctx := testCtx(t, c)
	const sources = 12
	runs := sourceRuns.Load()
	sg, srcs := numbersGraph("lossy", sources, 500)
	release, err := c.Persist(ctx, sg, srcs)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	g := graph.New()
	shuffleGate = newGate(sources / 2)
	defer shuffleGate.Open()
	outs := shuffleGraph("lossy", g, srcs, 6, true)
	done := make(chan error, 1)
	var values []any
	go func() {
		var err error
		values, err = c.Compute(ctx, g, outs)
		done <- err
	}()
	select { // half the transfers have pushed their pieces
	case <-shuffleGate.reached:
	case err := <-done:
		t.Fatalf("the shuffle ended before half its transfers had run: %v", err)
	}
	loseWorker(t, ctx, c, 1, shuffleGate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := shuffleGate.calls.Load(); n <= sources {
		t.Fatalf("the transfers ran %d times: the shuffle did not start again, so the worker was not lost while it ran", n)
	}
	checkShuffled(t, values, sources, 500, 6)
	n := sourceRuns.Load() - runs
	if n <= sources || n >= 2*sources {
		t.Fatalf("the sources ran %d times; want the lost worker's (and only those) again", n)
	}
}
