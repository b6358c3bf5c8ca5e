package cluster

import (
	"github.com/duskdata/dusk/internal/dashboard"
	"github.com/duskdata/dusk/internal/protocol"
)

// streamKept is how many task records the scheduler keeps, as Dask's task
// stream keeps the last 100,000.
const streamKept = 100_000

// taskStream is a ring of the latest task records, numbered from 0.
type taskStream struct {
	recs      []protocol.TaskRecord
	next      uint64 // the number of the next record
	observers []func(protocol.TaskRecord)
}

func (ts *taskStream) add(r protocol.TaskRecord) {
	if len(ts.recs) < streamKept {
		ts.recs = append(ts.recs, r)
	} else {
		ts.recs[ts.next%streamKept] = r
	}
	ts.next++
}

// since returns the records numbered since and later that are still kept,
// oldest first, and the number of the next record.
func (ts *taskStream) since(since uint64) ([]protocol.TaskRecord, uint64) {
	oldest := ts.next - uint64(len(ts.recs))
	since = max(since, oldest)
	if since >= ts.next {
		return nil, ts.next
	}
	out := make([]protocol.TaskRecord, 0, ts.next-since)
	for n := since; n < ts.next; n++ {
		out = append(out, ts.recs[n%streamKept])
	}
	return out, ts.next
}

// record adds a task a worker reports having computed to the stream.
func (ts *taskStream) record(from protocol.WorkerID, m *protocol.TaskFinished) {
	if m.Duration <= 0 || m.Start.IsZero() {
		return // fetched, not computed
	}
	r := protocol.TaskRecord{Key: m.Key, Prefix: m.Key.Prefix(), Worker: from, Thread: m.Thread,
		Start: m.Start, Stop: m.Start.Add(m.Duration), Nbytes: m.Nbytes}
	ts.add(r)
	for _, f := range ts.observers {
		f(r)
	}
}

// Workers describes the workers, as the scheduler knows them.
func (s *Scheduler) Workers() []protocol.WorkerInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.Workers()
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
// clients learn as they connect.
func (s *Scheduler) SetDashboard(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dashboard = addr
}

// Events counts the workers that joined and were lost, and their pauses.
func (s *Scheduler) Events() dashboard.Events {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events
}

// OnTask calls f, under the scheduler's lock, with each task record as it
// comes.
func (s *Scheduler) OnTask(f func(protocol.TaskRecord)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stream.observers = append(s.stream.observers, f)
}
