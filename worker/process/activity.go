package process

// The worker's observable side: what it did besides running tasks
// (transfers, spills), its traffic and CPU, and its log lines, gathered
// between reports to the scheduler; and the tasks it ran, for its own
// /metrics.

import (
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/transport"
)

// activityKept bounds the transfers and disk I/O a worker keeps between
// two reports: past it, the older half goes (at once, so that a spill
// storm does not shift the records at each one).
const activityKept = 4096

// logsSent bounds the log lines one report carries.
const logsSent = 200

// activity is what the worker gathers between reports.
type activity struct {
	received, sent atomic.Int64
	pauses         atomic.Int64

	mu       sync.Mutex
	records  []protocol.TaskRecord
	logsNext uint64 // the next forwarded log line to send
	cpu      time.Duration
	cpuAt    time.Time
	last     protocol.WorkerMetrics // the last report, for /metrics
	onTask   []func(protocol.TaskRecord)
	// bandwidth is the moving average of fetches' rates (bytes a second).
	bandwidth float64
}

// minMeasured is the least fetch whose rate counts towards the bandwidth:
// a smaller one's time is mostly the round trip (Dask's rule).
const minMeasured = 1 << 20

// add keeps a transfer's or disk I/O's record for the next report.
func (a *activity) add(r protocol.TaskRecord) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.records) == activityKept {
		a.records = a.records[:copy(a.records, a.records[activityKept/2:])]
	}
	a.records = append(a.records, r)
}

// onDisk records a value written to disk or read back.
func (w *Worker) onDisk(k graph.Key, write bool, start, stop time.Time, nbytes int64) {
	kind := protocol.RecordDiskRead
	if write {
		kind = protocol.RecordDiskWrite
	}
	w.act.add(protocol.TaskRecord{Key: k, Prefix: kind, Worker: w.id, Thread: -1, Start: start, Stop: stop,
		Nbytes: nbytes, Kind: kind})
}

// transferred records the results fetched from a peer in one request.
func (w *Worker) transferred(from protocol.WorkerID, keys []graph.Key, start time.Time, nbytes int64) {
	stop := time.Now()
	w.act.received.Add(nbytes)
	w.act.add(protocol.TaskRecord{Key: keys[0], Prefix: protocol.RecordTransfer, Worker: w.id, Thread: -1,
		Start: start, Stop: stop, Nbytes: nbytes, Kind: protocol.RecordTransfer, Peer: from})
	if took := stop.Sub(start).Seconds(); nbytes >= minMeasured && took > 0 {
		w.act.measured(float64(nbytes) / took)
	}
}

// measured takes a fetch's rate into the bandwidth's moving average: the
// first sets it, each later one a fifth.
func (a *activity) measured(rate float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.bandwidth == 0 {
		a.bandwidth = rate
		return
	}
	a.bandwidth = 0.8*a.bandwidth + 0.2*rate
}

// ranTask tells the worker's observers of a task it ran.
func (w *Worker) ranTask(t *graph.Task, thread int, start time.Time, took time.Duration, nbytes int64) {
	w.act.mu.Lock()
	obs := w.act.onTask
	w.act.mu.Unlock()
	if len(obs) == 0 {
		return
	}
	r := protocol.TaskRecord{Key: t.Key, Prefix: t.Key.Prefix(), Worker: w.id, Thread: thread,
		Start: start, Stop: start.Add(took), Nbytes: nbytes}
	for _, f := range obs {
		f(r)
	}
}

// OnTask calls f with each task this worker runs to the end, as it ends.
func (w *Worker) OnTask(f func(protocol.TaskRecord)) {
	w.act.mu.Lock()
	defer w.act.mu.Unlock()
	w.act.onTask = append(w.act.onTask, f)
}

// Metrics is the worker's last report to the scheduler, activity and
// logs left out, with its wire counters as they are now.
func (w *Worker) Metrics() protocol.WorkerMetrics {
	w.act.mu.Lock()
	m := w.act.last
	w.act.mu.Unlock()
	if mt, ok := w.net.(transport.Metered); ok {
		m.WireSent, m.WireReceived = mt.WireBytes() // now, not as last reported
	}
	return m
}

// Pauses counts the times the worker paused for memory.
func (w *Worker) Pauses() int64 { return w.act.pauses.Load() }

// metrics is the next report: m's memory with the CPU since the last, the
// traffic, and what was gathered since.
func (w *Worker) metrics(m protocol.Memory) *protocol.WorkerMetrics {
	cpu, now := w.processCPU(), time.Now()
	a := &w.act
	a.mu.Lock()
	defer a.mu.Unlock()
	out := &protocol.WorkerMetrics{Memory: m, Received: a.received.Load(), Sent: a.sent.Load(), Activity: a.records, Bandwidth: a.bandwidth}
	if mt, ok := w.net.(transport.Metered); ok {
		out.WireSent, out.WireReceived = mt.WireBytes()
	}
	if !a.cpuAt.IsZero() && now.After(a.cpuAt) {
		out.CPU = float64(cpu-a.cpu) / float64(now.Sub(a.cpuAt))
	}
	a.cpu, a.cpuAt, a.records = cpu, now, nil
	if w.logs != nil {
		out.Logs, a.logsNext = w.logs.Since(a.logsNext, logsSent)
	}
	a.last = *out
	a.last.Activity, a.last.Logs = nil, nil
	return out
}

// processCPU is the CPU time this worker used: the process's, or its
// share of it when workers share the process.
func (w *Worker) processCPU() time.Duration {
	if w.cpuShare != nil {
		return w.cpuShare()
	}
	return ProcessCPU()
}

// ProcessCPU is the CPU time, user and system, this process used so far.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
