package scheduler

import (
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// In a pool of two binaries, a task goes to a worker whose binary has its
// operation (a fused task's every operation), roots included; when the
// last such worker leaves, it waits for one to join rather than failing on
// a worker without it. Operations both binaries have go anywhere; one
// neither announces waits NoHolderTimeout, then fails naming it and the
// workers there are.
func TestPlacementByOperation(t *testing.T) {
	s := New(Config{})
	s.WorkerJoined(&protocol.HelloWorker{ID: "plain", NThreads: 4, Ops: []string{"one"}})
	s.WorkerJoined(&protocol.HelloWorker{ID: "app", NThreads: 1, Ops: []string{"one", "mine"}})
	s.ClientJoined("c")
	var tasks []*graph.Task
	var keys []graph.Key
	errs := map[graph.Key]string{}
	for i := range 6 {
		k := graph.Part("mine-0123456789abcdef", i)
		tasks = append(tasks, &graph.Task{Key: k, Op: "mine"})
		keys = append(keys, k)
		f := graph.Part("fused-0123456789abcdef", i)
		tasks = append(tasks, &graph.Task{Key: f, Op: graph.FusedOp, Chain: []*graph.Task{{Key: "x", Op: "one"}, {Key: f, Op: "mine"}}})
		keys = append(keys, f)
		o := graph.Part("one-0123456789abcdef", i)
		tasks = append(tasks, &graph.Task{Key: o, Op: "one"})
		keys = append(keys, o)
		u := graph.Part("unknown-0123456789abcdef", i)
		tasks = append(tasks, &graph.Task{Key: u, Op: "unknown"})
		keys = append(keys, u)
	}
	if err := s.FromClient("c", &protocol.UpdateGraph{Tasks: graph.Specs(tasks), Keys: keys}); err != nil {
		t.Fatal(err)
	}
	on := map[string]map[protocol.WorkerID]int{}
	ranOn := map[graph.Key]protocol.WorkerID{}
	drive := func() {
		for out := s.Outbox(); len(out) > 0; out = s.Outbox() {
			for _, e := range out {
				if m, ok := e.Msg.(*protocol.KeyErred); ok {
					errs[m.Key] = m.Err.Message
				}
				m, ok := e.Msg.(*protocol.ComputeTask)
				if !ok {
					continue
				}
				op := graph.Key(m.Spec.Key()).Prefix()
				if on[op] == nil {
					on[op] = map[protocol.WorkerID]int{}
				}
				on[op][e.Worker]++
				ranOn[m.Spec.Key()] = e.Worker
				if err := s.FromWorker(e.Worker, &protocol.TaskFinished{Key: m.Spec.Key(), Run: m.Run, Nbytes: 8, Duration: 1e6}); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	}
	drive()
	for _, op := range []string{"mine", "fused"} {
		if on[op]["plain"] > 0 || on[op]["app"] != 6 {
			t.Errorf("%s tasks ran %v; want all 6 on app", op, on[op])
		}
	}
	if on["one"]["plain"] == 0 {
		t.Errorf("tasks any binary runs went only to app: %v", on["one"])
	}
	unknown := graph.Part("unknown-0123456789abcdef", 0)
	if n := len(on["unknown"]); n > 0 || s.tasks.get(unknown).state != NoWorker {
		t.Fatalf("a task of an operation no binary announces ran (%v) or is %s; want it waiting", on["unknown"], s.tasks.get(unknown).state)
	}
	t0 := time.Unix(1_800_000_000, 0)
	s.Tick(t0)
	s.Tick(t0.Add(59 * time.Second))
	drive()
	if len(errs) > 0 {
		t.Fatalf("failed before the timeout: %v", errs)
	}
	s.Tick(t0.Add(61 * time.Second))
	drive()
	if msg := errs[unknown]; !strings.Contains(msg, "registers unknown") || !strings.Contains(msg, "plain, app") || len(errs) != 6 {
		t.Fatalf("after the timeout: %d errors, %q", len(errs), msg)
	}

	// The app's worker leaves: its operation's tasks wait for another.
	s.WorkerLost("app")
	more := []*graph.Task{{Key: "mine-fedcba9876543210-0", Op: "mine"}}
	if err := s.FromClient("c", &protocol.UpdateGraph{Tasks: graph.Specs(more), Keys: []graph.Key{more[0].Key}}); err != nil {
		t.Fatal(err)
	}
	drive()
	s.Tick(t0.Add(70 * time.Second))
	s.Tick(t0.Add(100 * time.Second)) // within the timeout of its wait
	drive()
	if n := on["mine"]["plain"]; n > 0 {
		t.Fatalf("with no app worker, %d mine tasks went to plain", n)
	}
	if st := s.tasks.get(more[0].Key).state; st != NoWorker {
		t.Fatalf("the mine task is %s, want no-worker", st)
	}
	s.WorkerJoined(&protocol.HelloWorker{ID: "app2", NThreads: 1, Ops: []string{"one", "mine"}})
	drive()
	if w := ranOn[more[0].Key]; w != "app2" {
		t.Fatalf("the waiting task ran on %q, not on the app worker that joined", w)
	}
	if n := on["mine"]["plain"] + on["fused"]["plain"]; n > 0 {
		t.Fatalf("%d of the lost results were computed again on plain", n)
	}
}
