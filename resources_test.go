package dusk

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/duskdata/dusk/array"
	"github.com/duskdata/dusk/bag"
	"github.com/duskdata/dusk/dataframe"
)

var (
	// hold returns its argument: a task to place and count.
	hold = Register("test-hold", func(_ context.Context, x int) (int, error) { return x, nil })
	// meet returns once two of its tasks run at once: they must share the
	// worker's two threads.
	meet = Register("test-meet", func(ctx context.Context, x int) (int, error) {
		meeting.Done()
		meeting.Wait()
		return x, nil
	})
	meeting sync.WaitGroup
	// bigTask asks for 10 GiB wherever it runs.
	bigTask = Register("test-big", func(_ context.Context, x int) (int, error) { return x, nil }, Needs{Memory: 10 << 30})
)

// Every worker offers its threads as cpu and its memory limit as memory,
// and tasks that ask for memory run within it: three 10 GiB tasks on a
// 16 GiB worker of two threads all run (one at a time: the worker's
// scenario testdata/resources.txt shows the second waiting for the first).
func TestNeedsAreHeld(t *testing.T) {
	c := newTestClient(t, Workers(1), ThreadsPerWorker(2), MemoryLimit(16<<30))
	ctx := testCtx(t, c)
	ws, err := c.Workers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := ws[0].Resources; r["cpu"] != 2 || r["memory"] != 16<<30 {
		t.Fatalf("the worker offers %v; want cpu=2 and memory=16 GiB without being told", r)
	}
	// Without needs the two threads run two tasks at once.
	meeting.Add(2)
	if got := gatherAll(t, ctx, meet, []int{1, 2}); !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("got %v", got)
	}
	if got := gatherAll(t, ctx, hold, []int{1, 2, 3}, Needs{Memory: 10 << 30}); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("got %v", got)
	}
	// A small memory request fits the default offer; one beyond any
	// worker's fails at once, naming what was asked and what is offered.
	if got := gatherAll(t, ctx, inc, []int{1}, Needs{Memory: 1 << 20}); got[0] != 2 {
		t.Fatalf("1 MiB task: %v", got)
	}
	f, err := bigTask.Submit(ctx, 1, Needs{Memory: 20 << 30})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Result(ctx)
	if !errors.Is(err, ErrNoWorker) || !strings.Contains(err.Error(), "asks for memory=21474836480") ||
		!strings.Contains(err.Error(), "offers is memory=17179869184") {
		t.Fatalf("err = %v; want what was asked and what the largest worker offers", err)
	}
}

// gatherAll maps fn over args with needs and returns the results.
func gatherAll(t *testing.T, ctx context.Context, fn Func[int, int], args []int, needs ...Needs) []int {
	t.Helper()
	futs, err := fn.Map(ctx, args, needs...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Gather(ctx, futs)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// Needs reach the tasks of a registered function, a ParallelMap, and the
// last step of a frame, a bag and an array: a resource no worker offers
// fails each at once, and one the workers offer lets each run.
func TestNeedsPerStep(t *testing.T) {
	licence := Needs{Custom: map[string]float64{"licence": 1}}
	for _, offered := range []bool{false, true} {
		var opts []Option
		if offered {
			opts = append(opts, Resources(map[string]float64{"licence": 1}))
		}
		c := newTestClient(t, append(opts, Workers(2))...)
		ctx := testCtx(t, c)
		check := func(what string, err error) {
			t.Helper()
			switch {
			case offered && err != nil:
				t.Errorf("%s, with a worker that offers the licence: %v", what, err)
			case !offered && (!errors.Is(err, ErrNoWorker) || !strings.Contains(err.Error(), "asks for licence=1")):
				t.Errorf("%s, with no worker that offers the licence: err = %v; want ErrNoWorker naming it", what, err)
			}
		}
		f, err := inc.Submit(ctx, 7, licence)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Result(ctx)
		check("Submit", err)
		_, err = array.ParallelMap[int, int](ctx, inc, []int{1, 2}, licence)
		check("ParallelMap", err)
		type row struct{ X int64 }
		df := dataframe.FromRecords([]row{{1}, {2}, {3}, {4}}, 2)
		_, err = df.WithColumn("y", dataframe.Col("X").Add(1)).WithNeeds(licence).Compute(ctx)
		check("frame", err)
		_, err = bag.FromSequence([]int{1, 2, 3}, 2).WithNeeds(licence).Compute(ctx)
		check("bag", err)
		_, err = array.Arange(10, 5).AddScalar(1).WithNeeds(licence).Compute(ctx)
		check("array", err)
	}
}

// MaxTasks refuses a step with more tasks than it allows, naming the step
// and its count, before anything runs; MaxWorkers keeps each computation
// on that many workers while others stay free.
func TestSafeguards(t *testing.T) {
	c := newTestClient(t, Workers(3), MaxTasks(8), MaxWorkers(1))
	ctx := testCtx(t, c)
	if _, err := inc.Map(ctx, make([]int, 9)); err == nil ||
		err.Error() != "dusk: step test-inc would add 9 tasks, more than MaxTasks(8) allows" {
		t.Fatalf("err = %v; want the step and its count", err)
	}
	type row struct{ X int64 }
	rows := make([]row, 100)
	_, err := dataframe.FromRecords(rows, 10).WithColumn("y", dataframe.Col("X").Add(1)).Compute(ctx)
	if err == nil || !strings.Contains(err.Error(), "would add 10 tasks, more than MaxTasks(8) allows") {
		t.Fatalf("err = %v; want the step of 10 partitions refused", err)
	}

	args := []int{1, 2, 3, 4, 5, 6, 7, 8}
	got := gatherAll(t, ctx, hold, args)
	if !slices.Equal(got, args) {
		t.Fatalf("got %v", got)
	}
	recs, err := c.TaskStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	on := map[string]bool{}
	for _, r := range recs {
		if r.Prefix == "test-hold" {
			on[string(r.Worker)] = true
		}
	}
	if len(on) != 1 {
		t.Fatalf("a computation limited to one worker ran on %d: %v", len(on), on)
	}
}
