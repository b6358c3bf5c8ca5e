package scheduler

import (
	"runtime"
	"slices"
	"strconv"
	"testing"
	"unsafe"

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
		tasks, level := benchTasks(n, "0123456789abcdef")
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

// A task record stays in the 144-byte size class: a field more costs a
// million-task graph 16 MB (the next class is 160); move what few tasks
// use to taskExtra.
func TestTaskRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(task{}); n > 144 {
		t.Fatalf("a task is %d bytes", n)
	}
}

// A graph run to the end and released leaves nothing behind: no task, and
// no room sized for it. (A forgotten task kept its inputs and dependents,
// so that one stale queue entry kept a whole million-task graph alive,
// with the map's and the queue's room for it: the scheduler of
// `dusk bench tasks` held 360 MB after its client left.)
func TestReleasedGraphFreed(t *testing.T) {
	base := liveHeap()
	tasks, level := benchTasks(200_000, "0123456789abcdef")
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
func benchTasks(n int, nonce string) ([]*graph.Task, []graph.Key) {
	var tasks []*graph.Task
	level := make([]graph.Key, n)
	for i := range level {
		level[i] = graph.Key(graph.Name("bench-one", "one", []byte(nonce), strconv.Itoa(i)))
		tasks = append(tasks, &graph.Task{Key: level[i], Op: "one", Args: []byte(nonce)})
	}
	for len(level) > 1 {
		var next []graph.Key
		for i := 0; i < len(level); i += 32 {
			in := level[i:min(i+32, len(level))]
			k := graph.Key(graph.Name("bench-add", "add", []byte(nonce), string(in[0]), strconv.Itoa(len(in))))
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

// runAll answers every ComputeTask in the outbox, and those that follow,
// as worker w1 finishing them; it returns the tasks computed and the keys
// reported in memory to clients.
func runAll(t *testing.T, s *State) (computed int, inMemory []graph.Key) {
	t.Helper()
	for out := s.Outbox(); len(out) > 0; out = s.Outbox() {
		for _, e := range out {
			switch m := e.Msg.(type) {
			case *protocol.ComputeTask:
				computed++
				if err := s.FromWorker("w1", &protocol.TaskFinished{Key: m.Spec.Key(), Run: m.Run, Nbytes: 8, Duration: 1000}); err != nil {
					t.Fatal(err)
				}
			case *protocol.KeyInMemory:
				inMemory = append(inMemory, m.Key)
			}
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	return computed, inMemory
}

// A graph sent in parts is filed as they come, linked at the last (whose
// tasks may be inputs of earlier parts'), and runs as if sent whole, while
// another client's graph comes and goes between its parts; a client lost
// before its last part leaves nothing behind.
func TestGraphInParts(t *testing.T) {
	tasks, root := benchTasks(2000, "graph in parts")
	specs := graph.Specs(tasks)
	slices.Reverse(specs) // the root first: inputs come in later parts
	s := New(Config{})
	s.WorkerJoined(&protocol.HelloWorker{ID: "w1", NThreads: 2})
	var lastOther int
	for i, part := range [][]graph.Spec{specs[:700], specs[700:1400], specs[1400:]} {
		m := &protocol.UpdateGraph{Tasks: part, More: i < 2}
		if i == 2 {
			m.Keys = root
		}
		if err := s.FromClient("c1", m); err != nil {
			t.Fatal(err)
		}
		other, otherRoot := benchTasks(40+i, "other "+strconv.Itoa(i))
		if err := s.FromClient("c2", &protocol.UpdateGraph{Tasks: graph.Specs(other), Keys: otherRoot}); err != nil {
			t.Fatal(err)
		}
		lastOther = len(other)
		if i < 2 {
			if n, _ := runAll(t, s); n != len(other) {
				t.Fatalf("part %d: %d tasks ran beside it, want the other graph's %d", i, n, len(other))
			}
		}
	}
	n, got := runAll(t, s)
	if n != len(tasks)+lastOther || !slices.Contains(got, root[0]) {
		t.Fatalf("%d tasks ran, want %d; in memory %v, want %s", n, len(tasks)+lastOther, got, root[0])
	}

	if err := s.FromClient("c3", &protocol.UpdateGraph{Tasks: specs[:700], More: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []protocol.ClientID{"c1", "c2", "c3"} {
		s.ClientLost(c)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if n := s.tasks.len(); n != 0 {
		t.Fatalf("%d tasks left after every client left", n)
	}
}
