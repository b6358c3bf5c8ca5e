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
	nonce := []byte("0123456789abcdef")
	for range b.N {
		before := liveHeap()
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
		s := New(Config{})
		s.WorkerJoined(&protocol.HelloWorker{ID: "w1", NThreads: 2})
		if err := s.FromClient("c1", &protocol.UpdateGraph{Tasks: graph.Specs(tasks), Keys: level}); err != nil {
			b.Fatal(err)
		}
		s.Outbox()
		tasks, level = nil, nil
		after := liveHeap()
		b.ReportMetric(float64(after-before)/float64(len(s.tasks)), "B/task")
		runtime.KeepAlive(s)
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
