package scheduler

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// BenchmarkTaskMemory reports the scheduler core's live heap per task for
// `dusk bench tasks`' graph (trivial leaves under a 32-way tree of sums),
// submitted and not yet run: the bytes each task costs while it waits.
func BenchmarkTaskMemory(b *testing.B) {
	const n = 200_000
	for range b.N {
		before := liveHeap()
		tasks, level := benchTasks(n)
		s := New(Config{})
		s.WorkerJoined(&protocol.HelloWorker{ID: "w1", NThreads: 2})
		if err := s.FromClient("c1", &protocol.UpdateGraph{Tasks: graph.Specs(tasks), Keys: level}); err != nil {
			b.Fatal(err)
		}
		s.Outbox()
		tasks, level = nil, nil
		after := liveHeap()
		b.ReportMetric(float64(after-before)/float64(s.tasks.len()), "B/task")
		runtime.KeepAlive(s)
	}
}

// A graph run to the end and released leaves nothing behind: no task, and
// no room sized for it. (A forgotten task kept its inputs and dependents,
// so that one stale queue entry kept a whole million-task graph alive,
// with the map's and the queue's room for it: the scheduler of
// `dusk bench tasks` held 360 MB after its client left.)
func TestReleasedGraphFreed(t *testing.T) {
	base := liveHeap()
	tasks, level := benchTasks(200_000)
	s := New(Config{})
	s.WorkerJoined(&protocol.HelloWorker{ID: "w1", NThreads: 2})
	s.ClientJoined("c1")
	if err := s.FromClient("c1", &protocol.UpdateGraph{Tasks: graph.Specs(tasks), Keys: level}); err != nil {
		t.Fatal(err)
	}
	tasks = nil
	for out := s.Outbox(); len(out) > 0; out = s.Outbox() {
		for _, e := range out {
			if m, ok := e.Msg.(*protocol.ComputeTask); ok {
				if err := s.FromWorker("w1", &protocol.TaskFinished{Key: m.Spec.Key(), Run: m.Run, Nbytes: 8, Duration: 1000}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := s.FromClient("c1", &protocol.ReleaseKeys{Keys: level}); err != nil {
		t.Fatal(err)
	}
	if n := s.tasks.len(); n != 0 {
		t.Fatalf("%d tasks left after the release", n)
	}
	if grew := int64(liveHeap()) - int64(base); grew > 2<<20 {
		t.Fatalf("the scheduler holds %d bytes after its graph of 200,000 tasks was released", grew)
	}
	runtime.KeepAlive(s)
}

// benchTasks is `dusk bench tasks`' graph of n leaves, and its root.
func benchTasks(n int) ([]*graph.Task, []graph.Key) {
	nonce := []byte("0123456789abcdef")
	var tasks []*graph.Task
	level := make([]graph.Key, n)
	for i := range level {
		level[i] = graph.Key(graph.Name("bench-one", "one", nonce, strconv.Itoa(i)))
		tasks = append(tasks, &graph.Task{Key: level[i], Op: "one", Args: nonce})
	}
	for len(level) > 1 {
		var next []graph.Key
		for i := 0; i < len(level); i += 32 {
			in := level[i:min(i+32, len(level))]
			k := graph.Key(graph.Name("bench-add", "add", nonce, string(in[0]), strconv.Itoa(len(in))))
			tasks = append(tasks, &graph.Task{Key: k, Op: "add", Inputs: in})
			next = append(next, k)
		}
		level = next
	}
	return tasks, level
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
