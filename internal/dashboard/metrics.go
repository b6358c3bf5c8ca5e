package dashboard

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/duskdata/dusk/internal/protocol"
)

// Events counts what happened to the workers since the scheduler started:
// Restarted counts workers that joined again after their nanny restarted
// them, Killed those of them it had killed for memory; Tasks the tasks run.
type Events struct {
	Joined, Lost, Pauses, Restarted, Killed int64
	Tasks                                   int64
}

// Observed is a Source that tells of each task record as it comes, so that
// the task durations' histogram counts every task, not only those a
// scrape finds in the stream.
type Observed interface {
	Source
	Events() Events
	OnTask(func(protocol.TaskRecord))
}

// The metrics of one worker, which the scheduler's /metrics tells of each
// worker and the worker's own of itself, alike.
var (
	threadsDesc = prometheus.NewDesc("dusk_worker_threads", "Tasks a worker runs at once.", []string{"worker"}, nil)
	memoryDesc  = prometheus.NewDesc("dusk_worker_memory_bytes", "A worker's memory as it last reported it: limit, process, managed (results in memory), unmanaged, spilled (bytes on disk).",
		[]string{"worker", "kind"}, nil)
	spilledDesc = prometheus.NewDesc("dusk_worker_spilled_bytes_total", "Bytes of results a worker moved to disk, as they were in memory.",
		[]string{"worker"}, nil)
	readBackDesc = prometheus.NewDesc("dusk_worker_read_back_bytes_total", "Bytes of results a worker read back from disk.",
		[]string{"worker"}, nil)
	transferredDesc = prometheus.NewDesc("dusk_worker_transferred_bytes_total", "Bytes of results a worker fetched from its peers (received) and served to them (sent).",
		[]string{"worker", "direction"}, nil)
	wireDesc = prometheus.NewDesc("dusk_worker_wire_bytes_total", "Bytes a worker's connections carried, everything included and compressed as sent: "+
		"what its network interface counts, less TCP/IP's headers (0 for the local cluster's workers, whose transfers stay in the process).",
		[]string{"worker", "direction"}, nil)
	cpuDesc = prometheus.NewDesc("dusk_worker_cpu", "Cores a worker's process kept busy, as it last reported (workers in one process: a share).",
		[]string{"worker"}, nil)
)

// collectWorker sends one worker's metrics.
func collectWorker(ch chan<- prometheus.Metric, id string, threads int, m protocol.WorkerMetrics) {
	gauge(ch, threadsDesc, float64(threads), id)
	mem := m.Memory
	for kind, v := range map[string]int64{"limit": mem.Limit, "process": mem.Process, "managed": mem.Managed,
		"unmanaged": mem.Unmanaged(), "spilled": mem.Spilled} {
		gauge(ch, memoryDesc, float64(v), id, kind)
	}
	counter(ch, spilledDesc, float64(mem.SpilledTotal), id)
	counter(ch, readBackDesc, float64(mem.UnspilledTotal), id)
	counter(ch, transferredDesc, float64(m.Received), id, "received")
	counter(ch, transferredDesc, float64(m.Sent), id, "sent")
	counter(ch, wireDesc, float64(m.WireReceived), id, "received")
	counter(ch, wireDesc, float64(m.WireSent), id, "sent")
	gauge(ch, cpuDesc, m.CPU, id)
}

var workerDescs = []*prometheus.Desc{threadsDesc, memoryDesc, spilledDesc, readBackDesc, transferredDesc, wireDesc, cpuDesc}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

// durations is the histogram of task durations by kind, fed by onTask.
func durations(name string, labels ...string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    name,
		Help:    "How long tasks ran on their workers, by task kind (key prefix).",
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10), // 100µs to 26 s
	}, append(labels, "prefix"))
}

// metrics is the Prometheus side of the scheduler's dashboard: gauges read
// from the source at each scrape, and the durations of tasks as they finish.
type metrics struct {
	src       Observed
	durations *prometheus.HistogramVec

	tasks, workers, events *prometheus.Desc
}

func newMetrics(src Observed) *metrics {
	m := &metrics{
		src:       src,
		durations: durations("dusk_task_duration_seconds"),
		tasks: prometheus.NewDesc("dusk_tasks", "Tasks the scheduler knows, by task kind and state (done: ran, result released since).",
			[]string{"prefix", "state"}, nil),
		workers: prometheus.NewDesc("dusk_workers", "Workers by status: running, paused (memory) or retiring.",
			[]string{"status"}, nil),
		events: prometheus.NewDesc("dusk_worker_events_total", "Workers joined, lost (dead or killed, retired ones included), paused for memory, restarted by their nanny, and killed by it for memory.",
			[]string{"event"}, nil),
	}
	src.OnTask(func(r protocol.TaskRecord) {
		m.durations.WithLabelValues(r.Prefix).Observe(r.Stop.Sub(r.Start).Seconds())
	})
	return m
}

func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range append([]*prometheus.Desc{m.tasks, m.workers, m.events}, workerDescs...) {
		ch <- d
	}
	m.durations.Describe(ch)
}

func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	for _, p := range m.src.Progress() {
		for state, n := range map[string]int{"waiting": p.Waiting, "processing": p.Processing,
			"memory": p.Memory, "done": p.Done, "erred": p.Erred} {
			gauge(ch, m.tasks, float64(n), p.Prefix, state)
		}
	}
	status := map[string]int{"running": 0, "paused": 0, "retiring": 0}
	for _, w := range m.src.Workers() {
		switch {
		case w.Retiring:
			status["retiring"]++
		case w.Paused:
			status["paused"]++
		default:
			status["running"]++
		}
		collectWorker(ch, string(w.ID), w.NThreads, protocol.WorkerMetrics{Memory: w.Memory, CPU: w.CPU,
			Received: w.Received, Sent: w.Sent, WireReceived: w.WireReceived, WireSent: w.WireSent})
	}
	for s, n := range status {
		gauge(ch, m.workers, float64(n), s)
	}
	ev := m.src.Events()
	for event, n := range map[string]int64{"joined": ev.Joined, "lost": ev.Lost, "paused": ev.Pauses,
		"restarted": ev.Restarted, "killed": ev.Killed} {
		counter(ch, m.events, float64(n), event)
	}
	m.durations.Collect(ch)
}

// metricsHandler serves the collector's metrics, and the Go runtime's and
// the process's, in Prometheus' text format.
func metricsHandler(c prometheus.Collector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(c, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
