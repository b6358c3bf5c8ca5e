package grpcnet

import (
	"context"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/internal/transport/transporttest"
)

// Every message survives the trip to its wire form and back.
func TestConvertRoundTrip(t *testing.T) {
	task := &graph.Task{Key: "k", Op: "op", Args: []byte("{}"), Inputs: []graph.Key{"a", "b"},
		Resources: graph.Resources{"GPU": 1}, Chain: []*graph.Task{{Key: "c", Op: "x", Inputs: []graph.Key{"a"}}}}
	terr := &protocol.TaskError{Kind: protocol.KilledWorker, Key: "k", Worker: "w", Message: "m", Stack: "s", Type: "*fs.PathError"}
	mem := protocol.Memory{Limit: 1, Process: 2, Managed: 3, Spilled: 4, SpilledTotal: 5, UnspilledTotal: 6, SpillError: "e"}
	msgs := []protocol.Msg{
		&protocol.HelloWorker{Version: "v", ID: "w", Name: "n", NThreads: 4, Resources: graph.Resources{"cpu": 4},
			Dashboard: "h:1", Restarted: protocol.RestartKilled, Ops: []string{"a", "b"}},
		&protocol.HelloClient{Version: "v", ID: "c"},
		&protocol.Welcome{Version: "v", Err: "e", Gossip: "g", GossipKey: []byte("k"), Dashboard: ":8787"},
		&protocol.ComputeTask{Spec: task.Spec(), Priority: protocol.Priority{Gen: 2, Ord: 3}, Run: 7,
			Deps: []protocol.Dep{{Key: "a", WhoHas: []protocol.WorkerID{"w1", "w2"}, Nbytes: 10}}},
		&protocol.FreeKeys{Keys: []graph.Key{"a", "b"}},
		&protocol.TaskFinished{Key: "k", Run: 7, Nbytes: 100, Duration: 3 * time.Millisecond, Start: time.Unix(1700000000, 5), Thread: 2},
		&protocol.TaskErred{Key: "k", Run: 7, Err: terr},
		&protocol.AddKeys{Keys: []graph.Key{"a"}, Nbytes: []int64{5}},
		&protocol.ReleasedData{Keys: []graph.Key{"a"}},
		&protocol.MissingData{Key: "a", From: "w1", Run: 4},
		&protocol.UpdateGraph{Tasks: []graph.Spec{task.Spec()}, Keys: []graph.Key{"k"}, MaxWorkers: 2},
		&protocol.ReleaseKeys{Keys: []graph.Key{"k"}},
		&protocol.KeyInMemory{Key: "k", WhoHas: []protocol.WorkerID{"w"}, Nbytes: 9, Run: 5},
		&protocol.KeyErred{Key: "k", Err: terr},
		&protocol.StealRequest{Key: "k"},
		&protocol.StealResponse{Key: "k", Given: true},
		&protocol.Retire{},
		&protocol.Replicate{Keys: []graph.Key{"a"}, From: "w"},
		&protocol.Retired{},
		&protocol.PeerLost{Worker: "w3"},
		&protocol.SchedulerQuery{ID: 12},
		&protocol.SchedulerReply{ID: 12, RSS: 1 << 30, PeakRSS: 2 << 30},
		&protocol.WorkerStatus{Paused: true, Reason: "r"},
		&protocol.WorkerMetrics{Memory: mem},
		&protocol.WorkerMetrics{Memory: mem, CPU: 1.5, Received: 7, Sent: 8, WireReceived: 9, WireSent: 10, Bandwidth: 12.5e6,
			Activity: []protocol.TaskRecord{{Key: "read-1", Prefix: protocol.RecordTransfer, Thread: -1, Start: time.Unix(1700000000, 0),
				Stop: time.Unix(1700000001, 0), Nbytes: 8, Kind: protocol.RecordTransfer, Peer: "w2"}},
			Logs: []protocol.LogLine{{Time: 5, Level: "WARN", Message: "m", Attrs: "a=1", Worker: "w"}}},
		&protocol.WorkersQuery{ID: 3, AtLeast: 2},
		&protocol.Profile{ID: 6, Start: true},
		&protocol.ProfileData{ID: 6, Worker: "w", Data: []byte("pprof"), Err: "e"},
		&protocol.ProfileReply{ID: 7, Profiles: []protocol.ProfileData{{ID: 6, Worker: "w", Data: []byte("pprof")}}},
		&protocol.ProgressQuery{ID: 4},
		&protocol.ProgressReply{ID: 4, Progress: []protocol.Progress{{Prefix: "read", Waiting: 1, Processing: 2, Memory: 3, Done: 4, Erred: 5}}},
		&protocol.TaskStreamQuery{ID: 5, Since: 9},
		&protocol.Adapt{ID: 8, Min: 1, Max: 4},
		&protocol.AdaptReply{ID: 8, Max: 3, Err: "e"},
		&protocol.Shared{ID: 9, Op: protocol.SharedPublish, Name: "n", Value: []byte("v"), Keys: []graph.Key{"a"}, Target: 2},
		&protocol.SharedReply{ID: 9, Value: []byte("v"), Keys: []graph.Key{"a"}, Found: true, N: 3, Err: "e"},
		&protocol.TaskStreamReply{ID: 5, Next: 11, Records: []protocol.TaskRecord{{Key: "read-1", Prefix: "read", Worker: "w",
			Thread: 1, Start: time.Unix(1700000000, 0), Stop: time.Unix(1700000001, 0), Nbytes: 8}}},
		&protocol.WorkersReply{ID: 3, Workers: []protocol.WorkerInfo{{ID: "w", Name: "n", NThreads: 2,
			Resources: graph.Resources{"cpu": 2}, Processing: 4, Held: 5, Memory: mem, Paused: true, Reason: "r", Retiring: true,
			CPU: 0.5, Received: 1, Sent: 2, WireReceived: 3, WireSent: 4, Dashboard: "h:2", LastSeen: time.Unix(1700000002, 0)}}},
	}
	back := roundTrip(t, msgs)
	for i := range msgs {
		if !reflect.DeepEqual(msgs[i], back[i]) {
			t.Errorf("%T: %+v came back as %+v", msgs[i], msgs[i], back[i])
		}
	}
}

// roundTrip sends msgs to their wire batches and back, as a stream does,
// and puts a graph that came in parts together again.
func roundTrip(t *testing.T, msgs []protocol.Msg) []protocol.Msg {
	t.Helper()
	bs, err := toWireParts(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var back []protocol.Msg
	var parts *protocol.UpdateGraph
	for _, b := range bs {
		if n := proto.Size(b); n > 2*partBytes {
			t.Errorf("a wire batch of %d bytes", n)
		}
		ms, err := batchFromWire(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			g, ok := m.(*protocol.UpdateGraph)
			switch {
			case ok && parts != nil:
				parts.Tasks = append(parts.Tasks, g.Tasks...)
				parts.Keys, parts.MaxWorkers, parts.More = g.Keys, g.MaxWorkers, g.More
				g = parts
			case parts != nil:
				t.Fatalf("%T between the parts of a graph", m)
			}
			if ok && g.More {
				parts = g
				continue
			}
			parts = nil
			back = append(back, m)
			if ok {
				back[len(back)-1] = g
			}
		}
	}
	if len(back) != len(msgs) {
		t.Fatalf("%d messages came back of %d", len(back), len(msgs))
	}
	return back
}

// A graph larger than a message may be goes in parts, consecutive, which
// put together are the graph, between the messages before and after it.
func TestGraphInParts(t *testing.T) {
	g := &protocol.UpdateGraph{Keys: []graph.Key{"sum"}, MaxWorkers: 3}
	for i := range 300_000 {
		g.Tasks = append(g.Tasks, (&graph.Task{Key: graph.Key(fmt.Sprintf("one-%032d", i)), Op: "one", Args: make([]byte, 40)}).Spec())
	}
	msgs := []protocol.Msg{&protocol.FreeKeys{Keys: []graph.Key{"a"}}, g, &protocol.ReleaseKeys{Keys: []graph.Key{"b"}}}
	bs, err := toWireParts(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) < 3 {
		t.Fatalf("a graph of %d tasks went in %d batches", len(g.Tasks), len(bs))
	}
	back := roundTrip(t, msgs)
	if !reflect.DeepEqual(back, msgs) {
		t.Fatal("the graph came back different")
	}
}

// TestConformance runs the suite every transport passes.
func TestConformance(t *testing.T) {
	transporttest.Run(t, func() transport.Network { return New() }, "127.0.0.1:1")
}

// A record larger than many chunks arrives whole.
func TestGetDataInChunks(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	b := array.NewFloat64Builder(memory.DefaultAllocator)
	for i := 0; i < 3_000_000; i++ { // 24 MB of incompressible floats
		b.Append(r.Float64())
	}
	col := b.NewArray()
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil), []arrow.Array{col}, int64(col.Len()))
	col.Release()
	defer rec.Release()

	n := New()
	ln, _ := n.Listen("", &transporttest.Echo{Data: map[graph.Key]any{"rec": rec, "count": int64(42)}})
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := n.Dial(ctx, ln.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	vals, err := conn.GetData(ctx, []graph.Key{"rec", "missing", "count"})
	if err != nil {
		t.Fatal(err)
	}
	got := vals["rec"].(arrow.Record)
	defer got.Release()
	if !array.RecordEqual(rec, got) || vals["count"] != int64(42) || len(vals) != 2 {
		t.Fatalf("got %d values; record equal=%v, count=%v", len(vals), array.RecordEqual(rec, got), vals["count"])
	}
}

// A push carries its header, its pieces (a record of many chunks among
// them) and its empty pieces.
func TestPush(t *testing.T) {
	rec := transporttest.Record(500_000)
	defer rec.Release()
	for _, comp := range []Compression{CompressNever, CompressAlways} {
		transporttest.Push(t, &Network{Compression: comp}, rec)
	}
}

// A refused connection fails the dial at once, with a clear error: Dial
// gets no deadline, so one that retried would hang the test.
func TestDialRefusedIsClearAndQuick(t *testing.T) {
	_, err := New().Dial(context.Background(), "127.0.0.1:1")
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err = %v; want connection refused", err)
	}
}

// A dial that reaches a web server (a dashboard's port) or a listener that
// never answers says which, naming how long it waited, instead of gRPC's
// "frame too large" or "context canceled".
func TestDialWrongPeer(t *testing.T) {
	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	addr := strings.TrimPrefix(web.URL, "http://")
	_, err := New().Dial(context.Background(), addr)
	if err == nil || !strings.Contains(err.Error(), "answered in HTTP/1.1") || !strings.Contains(err.Error(), addr) {
		t.Errorf("a web server: %v", err)
	}

	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = New().Dial(ctx, silent.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "no answer in") || !strings.Contains(err.Error(), silent.Addr().String()) {
		t.Errorf("a silent listener: %v", err)
	}
}
