package server

// The scheduler's observable side: what the dashboard and clients read of
// it (workers, progress, the task stream, events), each under its lock.

import (
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/dashboard"
	"github.com/duskdata/dusk/internal/protocol"
)

// streamKept is how many task records the scheduler keeps, about the last
// 100,000 as Dask's task stream does: whole blocks of streamBlock.
const (
	streamBlock = 4096
	streamKept  = 25 * streamBlock
)

// taskStream is a ring of the latest task records, numbered from 0, kept
// compact and in blocks allocated as it fills, so that recording a task
// copies nothing already recorded.
type taskStream struct {
	blocks    [][]streamEntry
	next      uint64  // the number of the next record
	runs      int64   // the task runs recorded (not transfers, not disk I/O)
	mean      float64 // recent mean run time in nanoseconds, weighting the last hundred or so
	observers []func(protocol.TaskRecord)
}

// streamEntry is a record as kept: times in Unix nanoseconds, the prefix
// found when read.
type streamEntry struct {
	key         graph.Key
	worker      protocol.WorkerID
	peer        protocol.WorkerID
	kind        string
	thread      int
	start, stop int64
	nbytes      int64
}

func (ts *taskStream) add(e streamEntry) {
	i := ts.next % streamKept
	b := int(i / streamBlock)
	if b == len(ts.blocks) {
		ts.blocks = append(ts.blocks, make([]streamEntry, streamBlock))
	}
	ts.blocks[b][i%streamBlock] = e
	ts.next++
}

func (ts *taskStream) kept() uint64 { return min(ts.next, streamKept) }

// since returns the records numbered since and later that are still kept,
// oldest first, and the number of the next record.
func (ts *taskStream) since(since uint64) ([]protocol.TaskRecord, uint64) {
	since = max(since, ts.next-ts.kept())
	if since >= ts.next {
		return nil, ts.next
	}
	out := make([]protocol.TaskRecord, 0, ts.next-since)
	for n := since; n < ts.next; n++ {
		i := n % streamKept
		out = append(out, ts.blocks[i/streamBlock][i%streamBlock].record())
	}
	return out, ts.next
}

func (e *streamEntry) record() protocol.TaskRecord {
	return protocol.TaskRecord{Key: e.key, Prefix: protocol.RecordPrefix(e.key, e.kind), Worker: e.worker, Thread: e.thread,
		Start: time.Unix(0, e.start), Stop: time.Unix(0, e.stop), Nbytes: e.nbytes, Kind: e.kind, Peer: e.peer}
}

// record adds a task a worker reports having computed to the stream.
func (ts *taskStream) record(from protocol.WorkerID, m *protocol.TaskFinished) {
	if m.Duration <= 0 || m.Start.IsZero() {
		return // fetched, not computed
	}
	start := m.Start.UnixNano()
	e := streamEntry{key: m.Key, worker: from, thread: m.Thread, start: start, stop: start + int64(m.Duration), nbytes: m.Nbytes}
	ts.add(e)
	ts.runs++
	ts.mean += (float64(m.Duration) - ts.mean) / float64(min(ts.runs, 100))
	if len(ts.observers) > 0 {
		r := e.record()
		for _, f := range ts.observers {
			f(r)
		}
	}
}

// observe keeps what a worker's report tells besides its metrics, which
// the core keeps: its transfers and disk I/O in the task stream, its log
// lines for the Logs page.
func (s *Scheduler) observe(from protocol.WorkerID, m *protocol.WorkerMetrics) {
	for _, r := range m.Activity {
		s.stream.add(streamEntry{key: r.Key, worker: from, peer: r.Peer, kind: r.Kind, thread: -1,
			start: r.Start.UnixNano(), stop: r.Stop.UnixNano(), nbytes: r.Nbytes})
	}
	if s.logs != nil {
		for _, l := range m.Logs {
			l.Worker = string(from)
			s.logs.Add(l)
		}
	}
}

// Workers describes the workers, as the scheduler knows them, with when
// each was last heard from.
func (s *Scheduler) Workers() []protocol.WorkerInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.state.Workers()
	for i := range ws {
		ws[i].LastSeen = s.seen[ws[i].ID]
	}
	return ws
}

// Progress reports the tasks by key prefix.
func (s *Scheduler) Progress() []protocol.Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.Progress()
}

// TaskStream returns the task records numbered since and later, and the
// number of the next.
func (s *Scheduler) TaskStream(since uint64) ([]protocol.TaskRecord, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stream.since(since)
}

// SetDashboard records where the dashboard is served (HOST:PORT), which
// clients learn as they connect, and the lines its Logs page shows, to
// which the workers' lines are added as they come.
func (s *Scheduler) SetDashboard(addr string, logs *dashboard.Logs) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dashboard, s.logs = addr, logs
}

// Events counts the workers that joined and were lost, and their pauses.
func (s *Scheduler) Events() dashboard.Events {
	s.mu.Lock()
	defer s.mu.Unlock()
	ev := s.events
	ev.Tasks = s.stream.runs
	return ev
}

// OnTask calls f, under the scheduler's lock, with each task record as it
// comes.
func (s *Scheduler) OnTask(f func(protocol.TaskRecord)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stream.observers = append(s.stream.observers, f)
}

// TaskInfo describes the task of key k, with its last run in the task
// stream, if the scheduler knows it.
func (s *Scheduler) TaskInfo(k graph.Key) (protocol.TaskInfo, *protocol.TaskRecord, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info, ok := s.state.TaskInfo(k)
	return info, s.stream.last(k), ok
}

// last finds the latest run of the task of key k still kept, or nil.
func (ts *taskStream) last(k graph.Key) *protocol.TaskRecord {
	for n := ts.next; n > ts.next-ts.kept(); n-- {
		i := (n - 1) % streamKept
		if e := &ts.blocks[i/streamBlock][i%streamBlock]; e.key == k && e.kind == "" {
			r := e.record()
			return &r
		}
	}
	return nil
}

// Groups describes the graph by task kind.
func (s *Scheduler) Groups() []protocol.Group {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.Groups()
}
