package grpcnet

import (
	"fmt"
	"time"
	"unsafe"

	"google.golang.org/protobuf/proto"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/transport/grpcnet/pb"
)

// partBytes bounds a wire batch, and a part of a graph sent in parts: far
// below what a message may be (maxMsg), so that a graph of a million tasks
// goes as a stream of parts rather than one message gRPC refuses.
const partBytes = 8 << 20

// toWireParts converts a batch of messages to wire batches of about
// partBytes or less each, in order; a graph whose tasks take more goes in
// parts (UpdateGraph.more), which the scheduler files as they come.
func toWireParts(msgs []protocol.Msg) ([]*pb.Batch, error) {
	var out []*pb.Batch
	cur, size := &pb.Batch{}, 0
	add := func(w *pb.Msg, n int) {
		if size > 0 && size+n > partBytes {
			out = append(out, cur)
			cur, size = &pb.Batch{}, 0
		}
		cur.Msgs = append(cur.Msgs, w)
		size += n
	}
	for _, m := range msgs {
		if g, ok := m.(*protocol.UpdateGraph); ok {
			for _, part := range graphParts(g) {
				add(part, proto.Size(part))
			}
			continue
		}
		w, err := msgToWire(m)
		if err != nil {
			return nil, err
		}
		add(w, proto.Size(w))
	}
	if len(cur.Msgs) > 0 {
		out = append(out, cur)
	}
	return out, nil
}

// graphParts is g on the wire: one message, or parts of about partBytes
// each, the last with the keys.
func graphParts(g *protocol.UpdateGraph) []*pb.Msg {
	var parts []*pb.Msg
	cur, size := &pb.UpdateGraph{}, 0
	for _, t := range g.Tasks {
		n := len(t) + 4
		if size > 0 && size+n > partBytes {
			cur.More = true
			parts = append(parts, &pb.Msg{Kind: &pb.Msg_UpdateGraph{UpdateGraph: cur}})
			cur, size = &pb.UpdateGraph{}, 0
		}
		cur.Specs = append(cur.Specs, specToWire(t))
		size += n
	}
	cur.Keys, cur.MaxWorkers = keysToWire(g.Keys), int32(g.MaxWorkers)
	return append(parts, &pb.Msg{Kind: &pb.Msg_UpdateGraph{UpdateGraph: cur}})
}

// batchFromWire converts a wire batch back to messages.
func batchFromWire(b *pb.Batch) ([]protocol.Msg, error) {
	msgs := make([]protocol.Msg, len(b.Msgs))
	for i, w := range b.Msgs {
		m, err := msgFromWire(w)
		if err != nil {
			return nil, err
		}
		msgs[i] = m
	}
	return msgs, nil
}

func msgToWire(m protocol.Msg) (*pb.Msg, error) {
	switch m := m.(type) {
	case *protocol.HelloWorker:
		return &pb.Msg{Kind: &pb.Msg_HelloWorker{HelloWorker: &pb.HelloWorker{
			Version: m.Version, Id: string(m.ID), Name: m.Name, Nthreads: int32(m.NThreads), Resources: m.Resources,
			Dashboard: m.Dashboard, Restarted: m.Restarted, Ops: m.Ops}}}, nil
	case *protocol.HelloClient:
		return &pb.Msg{Kind: &pb.Msg_HelloClient{HelloClient: &pb.HelloClient{Version: m.Version, Id: string(m.ID)}}}, nil
	case *protocol.Welcome:
		return &pb.Msg{Kind: &pb.Msg_Welcome{Welcome: &pb.Welcome{Version: m.Version, Err: m.Err, Gossip: m.Gossip, GossipKey: m.GossipKey, Dashboard: m.Dashboard}}}, nil
	case *protocol.ComputeTask:
		// One array of deps and one of holders: a sum of 32 inputs made
		// 64 small allocations a task.
		deps := make([]*pb.Dep, len(m.Deps))
		all := make([]pb.Dep, len(m.Deps))
		n := 0
		for _, d := range m.Deps {
			n += len(d.WhoHas)
		}
		holders := make([]string, 0, n)
		for i, d := range m.Deps {
			from := len(holders)
			for _, w := range d.WhoHas {
				holders = append(holders, string(w))
			}
			all[i].Key, all[i].WhoHas, all[i].Nbytes = string(d.Key), holders[from:len(holders):len(holders)], d.Nbytes
			deps[i] = &all[i]
		}
		ct := &pb.ComputeTask{Spec: specToWire(m.Spec), Priority: &pb.Priority{Gen: m.Priority.Gen, Ord: m.Priority.Ord}, Run: m.Run, Deps: deps}
		if r := m.Shuffle; r != nil {
			ct.Shuffle = &pb.ShuffleRun{Id: r.ID, Run: r.Run, Workers: workersToWire(r.Workers), Gens: r.Gens, Since: r.Since}
		}
		return &pb.Msg{Kind: &pb.Msg_ComputeTask{ComputeTask: ct}}, nil
	case *protocol.FreeKeys:
		return &pb.Msg{Kind: &pb.Msg_FreeKeys{FreeKeys: &pb.FreeKeys{Keys: keysToWire(m.Keys)}}}, nil
	case *protocol.TaskFinished:
		return &pb.Msg{Kind: &pb.Msg_TaskFinished{TaskFinished: &pb.TaskFinished{
			Key: string(m.Key), Run: m.Run, Nbytes: m.Nbytes, DurationNs: int64(m.Duration),
			StartNs: timeToWire(m.Start), Thread: int32(m.Thread)}}}, nil
	case *protocol.TaskErred:
		return &pb.Msg{Kind: &pb.Msg_TaskErred{TaskErred: &pb.TaskErred{Key: string(m.Key), Run: m.Run, Err: errToWire(m.Err)}}}, nil
	case *protocol.AddKeys:
		return &pb.Msg{Kind: &pb.Msg_AddKeys{AddKeys: &pb.AddKeys{Keys: keysToWire(m.Keys), Nbytes: m.Nbytes}}}, nil
	case *protocol.ReleasedData:
		return &pb.Msg{Kind: &pb.Msg_ReleasedData{ReleasedData: &pb.ReleasedData{Keys: keysToWire(m.Keys)}}}, nil
	case *protocol.MissingData:
		return &pb.Msg{Kind: &pb.Msg_MissingData{MissingData: &pb.MissingData{Key: string(m.Key), From: string(m.From), Run: m.Run}}}, nil
	case *protocol.UpdateGraph:
		specs := make([][]byte, len(m.Tasks))
		for i, t := range m.Tasks {
			specs[i] = specToWire(t)
		}
		return &pb.Msg{Kind: &pb.Msg_UpdateGraph{UpdateGraph: &pb.UpdateGraph{Specs: specs, Keys: keysToWire(m.Keys), MaxWorkers: int32(m.MaxWorkers), More: m.More}}}, nil
	case *protocol.ReleaseKeys:
		return &pb.Msg{Kind: &pb.Msg_ReleaseKeys{ReleaseKeys: &pb.ReleaseKeys{Keys: keysToWire(m.Keys)}}}, nil
	case *protocol.KeyInMemory:
		return &pb.Msg{Kind: &pb.Msg_KeyInMemory{KeyInMemory: &pb.KeyInMemory{
			Key: string(m.Key), WhoHas: workersToWire(m.WhoHas), Nbytes: m.Nbytes, Run: m.Run}}}, nil
	case *protocol.KeyErred:
		return &pb.Msg{Kind: &pb.Msg_KeyErred{KeyErred: &pb.KeyErred{Key: string(m.Key), Err: errToWire(m.Err)}}}, nil
	case *protocol.StealRequest:
		return &pb.Msg{Kind: &pb.Msg_StealRequest{StealRequest: &pb.StealRequest{Key: string(m.Key)}}}, nil
	case *protocol.StealResponse:
		return &pb.Msg{Kind: &pb.Msg_StealResponse{StealResponse: &pb.StealResponse{Key: string(m.Key), Given: m.Given}}}, nil
	case *protocol.Retire:
		return &pb.Msg{Kind: &pb.Msg_Retire{Retire: &pb.Retire{}}}, nil
	case *protocol.Replicate:
		return &pb.Msg{Kind: &pb.Msg_Replicate{Replicate: &pb.Replicate{Keys: keysToWire(m.Keys), From: string(m.From)}}}, nil
	case *protocol.Retired:
		return &pb.Msg{Kind: &pb.Msg_Retired{Retired: &pb.Retired{}}}, nil
	case *protocol.PeerLost:
		return &pb.Msg{Kind: &pb.Msg_PeerLost{PeerLost: &pb.PeerLost{Worker: string(m.Worker)}}}, nil
	case *protocol.SchedulerQuery:
		return &pb.Msg{Kind: &pb.Msg_SchedulerQuery{SchedulerQuery: &pb.SchedulerQuery{Id: m.ID}}}, nil
	case *protocol.SchedulerReply:
		return &pb.Msg{Kind: &pb.Msg_SchedulerReply{SchedulerReply: &pb.SchedulerReply{Id: m.ID, Rss: m.RSS, PeakRss: m.PeakRSS}}}, nil
	case *protocol.DropShuffle:
		return &pb.Msg{Kind: &pb.Msg_DropShuffle{DropShuffle: &pb.DropShuffle{Id: m.ID, Run: m.Run}}}, nil
	case *protocol.WorkerStatus:
		return &pb.Msg{Kind: &pb.Msg_WorkerStatus{WorkerStatus: &pb.WorkerStatus{Paused: m.Paused, Reason: m.Reason}}}, nil
	case *protocol.WorkerMetrics:
		logs := make([]*pb.LogLine, len(m.Logs))
		for i, l := range m.Logs {
			logs[i] = &pb.LogLine{TimeMs: l.Time, Level: l.Level, Message: l.Message, Attrs: l.Attrs, Worker: l.Worker}
		}
		return &pb.Msg{Kind: &pb.Msg_WorkerMetrics{WorkerMetrics: &pb.WorkerMetrics{Memory: memoryToWire(m.Memory),
			Cpu: m.CPU, Received: m.Received, Sent: m.Sent, WireReceived: m.WireReceived, WireSent: m.WireSent,
			Bandwidth: m.Bandwidth, Activity: recordsToWire(m.Activity), Logs: logs}}}, nil
	case *protocol.WorkersQuery:
		return &pb.Msg{Kind: &pb.Msg_WorkersQuery{WorkersQuery: &pb.WorkersQuery{Id: m.ID, AtLeast: int64(m.AtLeast)}}}, nil
	case *protocol.WorkersReply:
		ws := make([]*pb.WorkerInfo, len(m.Workers))
		for i, w := range m.Workers {
			ws[i] = &pb.WorkerInfo{Id: string(w.ID), Name: w.Name, Nthreads: int32(w.NThreads), Resources: w.Resources,
				Processing: int32(w.Processing), Held: w.Held, Memory: memoryToWire(w.Memory),
				Paused: w.Paused, Reason: w.Reason, Retiring: w.Retiring,
				Cpu: w.CPU, Received: w.Received, Sent: w.Sent, WireReceived: w.WireReceived, WireSent: w.WireSent,
				Dashboard: w.Dashboard, LastSeenNs: timeToWire(w.LastSeen)}
		}
		return &pb.Msg{Kind: &pb.Msg_WorkersReply{WorkersReply: &pb.WorkersReply{Id: m.ID, Workers: ws}}}, nil
	case *protocol.ProgressQuery:
		return &pb.Msg{Kind: &pb.Msg_ProgressQuery{ProgressQuery: &pb.ProgressQuery{Id: m.ID}}}, nil
	case *protocol.ProgressReply:
		ps := make([]*pb.Progress, len(m.Progress))
		for i, p := range m.Progress {
			ps[i] = &pb.Progress{Prefix: p.Prefix, Waiting: int64(p.Waiting), Processing: int64(p.Processing),
				Memory: int64(p.Memory), Done: int64(p.Done), Erred: int64(p.Erred)}
		}
		return &pb.Msg{Kind: &pb.Msg_ProgressReply{ProgressReply: &pb.ProgressReply{Id: m.ID, Progress: ps}}}, nil
	case *protocol.TaskStreamQuery:
		return &pb.Msg{Kind: &pb.Msg_TaskStreamQuery{TaskStreamQuery: &pb.TaskStreamQuery{Id: m.ID, Since: m.Since}}}, nil
	case *protocol.Adapt:
		return &pb.Msg{Kind: &pb.Msg_Adapt{Adapt: &pb.Adapt{Id: m.ID, Min: int64(m.Min), Max: int64(m.Max)}}}, nil
	case *protocol.AdaptReply:
		return &pb.Msg{Kind: &pb.Msg_AdaptReply{AdaptReply: &pb.AdaptReply{Id: m.ID, Max: int64(m.Max), Err: m.Err}}}, nil
	case *protocol.Shared:
		return &pb.Msg{Kind: &pb.Msg_Shared{Shared: &pb.Shared{Id: m.ID, Op: int32(m.Op), Name: m.Name, Value: m.Value,
			Keys: keysToWire(m.Keys), Target: m.Target}}}, nil
	case *protocol.SharedReply:
		return &pb.Msg{Kind: &pb.Msg_SharedReply{SharedReply: &pb.SharedReply{Id: m.ID, Value: m.Value, Keys: keysToWire(m.Keys),
			Found: m.Found, N: int64(m.N), Err: m.Err}}}, nil
	case *protocol.TaskStreamReply:
		return &pb.Msg{Kind: &pb.Msg_TaskStreamReply{TaskStreamReply: &pb.TaskStreamReply{Id: m.ID, Records: recordsToWire(m.Records), Next: m.Next}}}, nil
	case *protocol.Profile:
		return &pb.Msg{Kind: &pb.Msg_Profile{Profile: &pb.Profile{Id: m.ID, Start: m.Start}}}, nil
	case *protocol.ProfileData:
		return &pb.Msg{Kind: &pb.Msg_ProfileData{ProfileData: profileToWire(*m)}}, nil
	case *protocol.ProfileReply:
		ps := make([]*pb.ProfileData, len(m.Profiles))
		for i, p := range m.Profiles {
			ps[i] = profileToWire(p)
		}
		return &pb.Msg{Kind: &pb.Msg_ProfileReply{ProfileReply: &pb.ProfileReply{Id: m.ID, Profiles: ps}}}, nil
	}
	return nil, fmt.Errorf("grpcnet: no wire form for %T", m)
}

func msgFromWire(w *pb.Msg) (protocol.Msg, error) {
	switch k := w.Kind.(type) {
	case *pb.Msg_HelloWorker:
		m := k.HelloWorker
		return &protocol.HelloWorker{Version: m.Version, ID: protocol.WorkerID(m.Id), Name: m.Name,
			NThreads: int(m.Nthreads), Resources: m.Resources, Dashboard: m.Dashboard, Restarted: m.Restarted, Ops: m.Ops}, nil
	case *pb.Msg_HelloClient:
		return &protocol.HelloClient{Version: k.HelloClient.Version, ID: protocol.ClientID(k.HelloClient.Id)}, nil
	case *pb.Msg_Welcome:
		m := k.Welcome
		return &protocol.Welcome{Version: m.Version, Err: m.Err, Gossip: m.Gossip, GossipKey: m.GossipKey, Dashboard: m.Dashboard}, nil
	case *pb.Msg_ComputeTask:
		m := k.ComputeTask
		deps := make([]protocol.Dep, len(m.Deps))
		for i, d := range m.Deps {
			deps[i] = protocol.Dep{Key: graph.Key(d.Key), WhoHas: workersFromWire(d.WhoHas), Nbytes: d.Nbytes}
		}
		if len(deps) == 0 {
			deps = nil
		}
		var run *protocol.ShuffleRun
		if r := m.Shuffle; r != nil {
			run = &protocol.ShuffleRun{ID: r.Id, Run: r.Run, Workers: workersFromWire(r.Workers), Gens: r.Gens, Since: r.Since}
		}
		spec, err := graph.ParseSpec(m.Spec)
		if err != nil {
			return nil, fmt.Errorf("compute-task: %w", err)
		}
		return &protocol.ComputeTask{Spec: spec, Shuffle: run,
			Priority: protocol.Priority{Gen: m.Priority.GetGen(), Ord: m.Priority.GetOrd()}, Run: m.Run, Deps: deps}, nil
	case *pb.Msg_FreeKeys:
		return &protocol.FreeKeys{Keys: keysFromWire(k.FreeKeys.Keys)}, nil
	case *pb.Msg_TaskFinished:
		m := k.TaskFinished
		return &protocol.TaskFinished{Key: graph.Key(m.Key), Run: m.Run, Nbytes: m.Nbytes, Duration: time.Duration(m.DurationNs),
			Start: timeFromWire(m.StartNs), Thread: int(m.Thread)}, nil
	case *pb.Msg_TaskErred:
		m := k.TaskErred
		return &protocol.TaskErred{Key: graph.Key(m.Key), Run: m.Run, Err: errFromWire(m.Err)}, nil
	case *pb.Msg_AddKeys:
		return &protocol.AddKeys{Keys: keysFromWire(k.AddKeys.Keys), Nbytes: k.AddKeys.Nbytes}, nil
	case *pb.Msg_ReleasedData:
		return &protocol.ReleasedData{Keys: keysFromWire(k.ReleasedData.Keys)}, nil
	case *pb.Msg_MissingData:
		return &protocol.MissingData{Key: graph.Key(k.MissingData.Key), From: protocol.WorkerID(k.MissingData.From), Run: k.MissingData.Run}, nil
	case *pb.Msg_UpdateGraph:
		m := k.UpdateGraph
		tasks := make([]graph.Spec, len(m.Specs))
		for i, b := range m.Specs {
			spec, err := graph.ParseSpec(b)
			if err != nil {
				return nil, fmt.Errorf("update-graph: task %d: %w", i, err)
			}
			tasks[i] = spec
		}
		return &protocol.UpdateGraph{Tasks: tasks, Keys: keysFromWire(m.Keys), MaxWorkers: int(m.MaxWorkers), More: m.More}, nil
	case *pb.Msg_ReleaseKeys:
		return &protocol.ReleaseKeys{Keys: keysFromWire(k.ReleaseKeys.Keys)}, nil
	case *pb.Msg_KeyInMemory:
		m := k.KeyInMemory
		return &protocol.KeyInMemory{Key: graph.Key(m.Key), WhoHas: workersFromWire(m.WhoHas), Nbytes: m.Nbytes, Run: m.Run}, nil
	case *pb.Msg_KeyErred:
		return &protocol.KeyErred{Key: graph.Key(k.KeyErred.Key), Err: errFromWire(k.KeyErred.Err)}, nil
	case *pb.Msg_StealRequest:
		return &protocol.StealRequest{Key: graph.Key(k.StealRequest.Key)}, nil
	case *pb.Msg_StealResponse:
		return &protocol.StealResponse{Key: graph.Key(k.StealResponse.Key), Given: k.StealResponse.Given}, nil
	case *pb.Msg_Retire:
		return &protocol.Retire{}, nil
	case *pb.Msg_Replicate:
		return &protocol.Replicate{Keys: keysFromWire(k.Replicate.Keys), From: protocol.WorkerID(k.Replicate.From)}, nil
	case *pb.Msg_Retired:
		return &protocol.Retired{}, nil
	case *pb.Msg_PeerLost:
		return &protocol.PeerLost{Worker: protocol.WorkerID(k.PeerLost.Worker)}, nil
	case *pb.Msg_SchedulerQuery:
		return &protocol.SchedulerQuery{ID: k.SchedulerQuery.Id}, nil
	case *pb.Msg_SchedulerReply:
		r := k.SchedulerReply
		return &protocol.SchedulerReply{ID: r.Id, RSS: r.Rss, PeakRSS: r.PeakRss}, nil
	case *pb.Msg_DropShuffle:
		return &protocol.DropShuffle{ID: k.DropShuffle.Id, Run: k.DropShuffle.Run}, nil
	case *pb.Msg_WorkerStatus:
		return &protocol.WorkerStatus{Paused: k.WorkerStatus.Paused, Reason: k.WorkerStatus.Reason}, nil
	case *pb.Msg_WorkerMetrics:
		m := k.WorkerMetrics
		var logs []protocol.LogLine
		for _, l := range m.Logs {
			logs = append(logs, protocol.LogLine{Time: l.TimeMs, Level: l.Level, Message: l.Message, Attrs: l.Attrs, Worker: l.Worker})
		}
		return &protocol.WorkerMetrics{Memory: memoryFromWire(m.Memory), CPU: m.Cpu, Received: m.Received, Sent: m.Sent,
			WireReceived: m.WireReceived, WireSent: m.WireSent, Bandwidth: m.Bandwidth,
			Activity: recordsFromWire(m.Activity), Logs: logs}, nil
	case *pb.Msg_WorkersQuery:
		return &protocol.WorkersQuery{ID: k.WorkersQuery.Id, AtLeast: int(k.WorkersQuery.AtLeast)}, nil
	case *pb.Msg_WorkersReply:
		m := k.WorkersReply
		ws := make([]protocol.WorkerInfo, len(m.Workers))
		for i, w := range m.Workers {
			ws[i] = protocol.WorkerInfo{ID: protocol.WorkerID(w.Id), Name: w.Name, NThreads: int(w.Nthreads),
				Resources: w.Resources, Processing: int(w.Processing), Held: w.Held, Memory: memoryFromWire(w.Memory),
				Paused: w.Paused, Reason: w.Reason, Retiring: w.Retiring,
				CPU: w.Cpu, Received: w.Received, Sent: w.Sent, WireReceived: w.WireReceived, WireSent: w.WireSent,
				Dashboard: w.Dashboard, LastSeen: timeFromWire(w.LastSeenNs)}
		}
		return &protocol.WorkersReply{ID: m.Id, Workers: ws}, nil
	case *pb.Msg_ProgressQuery:
		return &protocol.ProgressQuery{ID: k.ProgressQuery.Id}, nil
	case *pb.Msg_ProgressReply:
		m := k.ProgressReply
		ps := make([]protocol.Progress, len(m.Progress))
		for i, p := range m.Progress {
			ps[i] = protocol.Progress{Prefix: p.Prefix, Waiting: int(p.Waiting), Processing: int(p.Processing),
				Memory: int(p.Memory), Done: int(p.Done), Erred: int(p.Erred)}
		}
		return &protocol.ProgressReply{ID: m.Id, Progress: ps}, nil
	case *pb.Msg_TaskStreamQuery:
		return &protocol.TaskStreamQuery{ID: k.TaskStreamQuery.Id, Since: k.TaskStreamQuery.Since}, nil
	case *pb.Msg_Adapt:
		return &protocol.Adapt{ID: k.Adapt.Id, Min: int(k.Adapt.Min), Max: int(k.Adapt.Max)}, nil
	case *pb.Msg_AdaptReply:
		return &protocol.AdaptReply{ID: k.AdaptReply.Id, Max: int(k.AdaptReply.Max), Err: k.AdaptReply.Err}, nil
	case *pb.Msg_Shared:
		m := k.Shared
		return &protocol.Shared{ID: m.Id, Op: protocol.SharedOp(m.Op), Name: m.Name, Value: m.Value,
			Keys: keysFromWire(m.Keys), Target: m.Target}, nil
	case *pb.Msg_SharedReply:
		m := k.SharedReply
		return &protocol.SharedReply{ID: m.Id, Value: m.Value, Keys: keysFromWire(m.Keys), Found: m.Found, N: int(m.N), Err: m.Err}, nil
	case *pb.Msg_TaskStreamReply:
		m := k.TaskStreamReply
		return &protocol.TaskStreamReply{ID: m.Id, Records: recordsFromWire(m.Records), Next: m.Next}, nil
	case *pb.Msg_Profile:
		return &protocol.Profile{ID: k.Profile.Id, Start: k.Profile.Start}, nil
	case *pb.Msg_ProfileData:
		p := profileFromWire(k.ProfileData)
		return &p, nil
	case *pb.Msg_ProfileReply:
		var ps []protocol.ProfileData
		for _, p := range k.ProfileReply.Profiles {
			ps = append(ps, profileFromWire(p))
		}
		return &protocol.ProfileReply{ID: k.ProfileReply.Id, Profiles: ps}, nil
	}
	return nil, fmt.Errorf("grpcnet: unknown message %T", w.Kind)
}

// specToWire is a spec's bytes, shared rather than copied: the message
// that carries them only reads them.
func specToWire(s graph.Spec) []byte { return unsafe.Slice(unsafe.StringData(string(s)), len(s)) }

func memoryToWire(m protocol.Memory) *pb.Memory {
	return &pb.Memory{Limit: m.Limit, Process: m.Process, Managed: m.Managed, Spilled: m.Spilled,
		SpilledTotal: m.SpilledTotal, UnspilledTotal: m.UnspilledTotal, SpillError: m.SpillError}
}

func memoryFromWire(w *pb.Memory) protocol.Memory {
	if w == nil {
		return protocol.Memory{}
	}
	return protocol.Memory{Limit: w.Limit, Process: w.Process, Managed: w.Managed, Spilled: w.Spilled,
		SpilledTotal: w.SpilledTotal, UnspilledTotal: w.UnspilledTotal, SpillError: w.SpillError}
}

func errToWire(e *protocol.TaskError) *pb.TaskError {
	if e == nil {
		return nil
	}
	return &pb.TaskError{Kind: int32(e.Kind), Key: string(e.Key), Worker: string(e.Worker), Message: e.Message, Stack: e.Stack, Type: e.Type}
}

func errFromWire(w *pb.TaskError) *protocol.TaskError {
	if w == nil {
		return nil
	}
	return &protocol.TaskError{Kind: protocol.ErrorKind(w.Kind), Key: graph.Key(w.Key),
		Worker: protocol.WorkerID(w.Worker), Message: w.Message, Stack: w.Stack, Type: w.Type}
}

func ints32(xs []int) []int32 {
	if xs == nil {
		return nil
	}
	out := make([]int32, len(xs))
	for i, x := range xs {
		out[i] = int32(x)
	}
	return out
}

func ints(xs []int32) []int {
	if xs == nil {
		return nil
	}
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

func keysToWire(ks []graph.Key) []string {
	if ks == nil {
		return nil
	}
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

func keysFromWire(ks []string) []graph.Key {
	if len(ks) == 0 {
		return nil
	}
	out := make([]graph.Key, len(ks))
	for i, k := range ks {
		out[i] = graph.Key(k)
	}
	return out
}

func workersToWire(ws []protocol.WorkerID) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = string(w)
	}
	return out
}

func workersFromWire(ws []string) []protocol.WorkerID {
	out := make([]protocol.WorkerID, len(ws))
	for i, w := range ws {
		out[i] = protocol.WorkerID(w)
	}
	return out
}

// timeToWire writes t as Unix nanoseconds, 0 for the zero time.
func timeToWire(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func timeFromWire(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

func recordsToWire(rs []protocol.TaskRecord) []*pb.TaskRecord {
	out := make([]*pb.TaskRecord, len(rs))
	for i, r := range rs {
		out[i] = &pb.TaskRecord{Key: string(r.Key), Worker: string(r.Worker), Thread: int32(r.Thread),
			StartNs: timeToWire(r.Start), StopNs: timeToWire(r.Stop), Nbytes: r.Nbytes, Kind: r.Kind, Peer: string(r.Peer)}
	}
	return out
}

func recordsFromWire(rs []*pb.TaskRecord) []protocol.TaskRecord {
	if len(rs) == 0 {
		return nil
	}
	out := make([]protocol.TaskRecord, len(rs))
	for i, r := range rs {
		key := graph.Key(r.Key)
		out[i] = protocol.TaskRecord{Key: key, Prefix: protocol.RecordPrefix(key, r.Kind), Worker: protocol.WorkerID(r.Worker),
			Thread: int(r.Thread), Start: timeFromWire(r.StartNs), Stop: timeFromWire(r.StopNs), Nbytes: r.Nbytes,
			Kind: r.Kind, Peer: protocol.WorkerID(r.Peer)}
	}
	return out
}

func profileToWire(p protocol.ProfileData) *pb.ProfileData {
	return &pb.ProfileData{Id: p.ID, Worker: string(p.Worker), Data: p.Data, Err: p.Err}
}

func profileFromWire(p *pb.ProfileData) protocol.ProfileData {
	return protocol.ProfileData{ID: p.Id, Worker: protocol.WorkerID(p.Worker), Data: p.Data, Err: p.Err}
}
