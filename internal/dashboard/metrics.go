package dashboard

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/duskdata/dusk/internal/protocol"
)

// Events counts what happened to the workers since the scheduler started.
type Events struct {
	Joined, Lost, Pauses int64
}

// Observed is a Source that tells of each task record as it comes, so that
// the task durations' histogram counts every task, not only those a
// scrape finds in the stream.
type Observed interface {
	Source
	Events() Events
	OnTask(func(protocol.TaskRecord))
}

// metrics is the Prometheus side of the dashboard: gauges read from the
// source at each scrape, and the durations of tasks as they finish.
type metrics struct {
	src       Observed
	durations *prometheus.HistogramVec

	tasks, workers, threads, memory, spilled, unspilled, events *prometheus.Desc
}

func newMetrics(src Observed) *metrics {
	m := &metrics{
		src: src,
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "dusk_task_duration_seconds",
			Help:    "How long tasks ran on their workers, by task kind (key prefix).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10), // 100µs to 26 s
		}, []string{"prefix"}),
		tasks: prometheus.NewDesc("dusk_tasks", "Tasks the scheduler knows, by task kind and state (done: ran, result released since).",
			[]string{"prefix", "state"}, nil),
		workers: prometheus.NewDesc("dusk_workers", "Workers by status: running, paused (memory) or retiring.",
			[]string{"status"}, nil),
		threads: prometheus.NewDesc("dusk_worker_threads", "Tasks a worker runs at once.", []string{"worker"}, nil),
		memory: prometheus.NewDesc("dusk_worker_memory_bytes", "A worker's memory as it last reported it: limit, process, managed (results in memory), unmanaged, spilled (bytes on disk).",
			[]string{"worker", "kind"}, nil),
		spilled: prometheus.NewDesc("dusk_worker_spilled_bytes_total", "Bytes of results a worker moved to disk, as they were in memory.",
			[]string{"worker"}, nil),
		unspilled: prometheus.NewDesc("dusk_worker_read_back_bytes_total", "Bytes of results a worker read back from disk.",
			[]string{"worker"}, nil),
		events: prometheus.NewDesc("dusk_worker_events_total", "Workers joined, lost (dead or killed, retired ones included) and pauses for memory.",
			[]string{"event"}, nil),
	}
	src.OnTask(func(r protocol.TaskRecord) {
		m.durations.WithLabelValues(r.Prefix).Observe(r.Stop.Sub(r.Start).Seconds())
	})
	return m
}

func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.tasks, m.workers, m.threads, m.memory, m.spilled, m.unspilled, m.events} {
		ch <- d
	}
	m.durations.Describe(ch)
}

func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	for _, p := range m.src.Progress() {
		for state, n := range map[string]int{"waiting": p.Waiting, "processing": p.Processing,
			"memory": p.Memory, "done": p.Done, "erred": p.Erred} {
			gauge(m.tasks, float64(n), p.Prefix, state)
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
		id, mem := string(w.ID), w.Memory
		gauge(m.threads, float64(w.NThreads), id)
		for kind, v := range map[string]int64{"limit": mem.Limit, "process": mem.Process, "managed": mem.Managed,
			"unmanaged": mem.Unmanaged(), "spilled": mem.Spilled} {
			gauge(m.memory, float64(v), id, kind)
		}
		counter(m.spilled, float64(mem.SpilledTotal), id)
		counter(m.unspilled, float64(mem.UnspilledTotal), id)
	}
	for s, n := range status {
		gauge(m.workers, float64(n), s)
	}
	ev := m.src.Events()
	counter(m.events, float64(ev.Joined), "joined")
	counter(m.events, float64(ev.Lost), "lost")
	counter(m.events, float64(ev.Pauses), "paused")
	m.durations.Collect(ch)
}

// metricsHandler serves src's metrics, and the Go runtime's and the
// process's, in Prometheus' text format.
func metricsHandler(src Observed) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newMetrics(src), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}
