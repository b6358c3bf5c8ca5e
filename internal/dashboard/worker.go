package dashboard

import (
	"log/slog"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/duskdata/dusk/internal/protocol"
)

// WorkerSource is a worker as its own HTTP port tells of it.
type WorkerSource interface {
	ID() protocol.WorkerID
	// Metrics is its last report to the scheduler.
	Metrics() protocol.WorkerMetrics
	// Pauses counts its pauses for memory.
	Pauses() int64
	// OnTask calls f with each task it runs to the end.
	OnTask(f func(protocol.TaskRecord))
}

// WorkerConfig says how a worker's port is served.
type WorkerConfig struct {
	Pprof   bool
	Threads int
	// Restarts and Kills are its nanny's restarts of its worker so far,
	// and those for memory.
	Restarts, Kills int
	Log             *slog.Logger
}

// ServeWorker serves a worker's /metrics (and, with Pprof, Go's profiles)
// on ln in the background. The worker tells the scheduler where as it
// joins, so its port is listened on first.
func ServeWorker(ln net.Listener, src WorkerSource, cfg WorkerConfig) *http.Server {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metricsHandler(newWorkerMetrics(src, cfg)))
	if cfg.Pprof {
		servePprof(mux)
	}
	return serve(mux, ln, cfg.Log)
}

// workerMetrics is the Prometheus side of a worker's port: what it last
// reported to the scheduler, its pauses and restarts, and the durations of
// the tasks it ran.
type workerMetrics struct {
	src                     WorkerSource
	cfg                     WorkerConfig
	durations               *prometheus.HistogramVec
	pauses, restarts, kills *prometheus.Desc
}

func newWorkerMetrics(src WorkerSource, cfg WorkerConfig) *workerMetrics {
	labels := []string{"worker"}
	m := &workerMetrics{src: src, cfg: cfg,
		durations: durations("dusk_worker_task_duration_seconds", labels...),
		pauses:    prometheus.NewDesc("dusk_worker_pauses_total", "Times the worker paused for memory.", labels, nil),
		restarts:  prometheus.NewDesc("dusk_worker_restarts_total", "Times its nanny restarted the worker (this process's predecessors).", labels, nil),
		kills:     prometheus.NewDesc("dusk_worker_killed_total", "Times its nanny killed the worker for memory.", labels, nil),
	}
	id := string(src.ID())
	src.OnTask(func(r protocol.TaskRecord) {
		m.durations.WithLabelValues(id, r.Prefix).Observe(r.Stop.Sub(r.Start).Seconds())
	})
	return m
}

func (m *workerMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range append([]*prometheus.Desc{m.pauses, m.restarts, m.kills}, workerDescs...) {
		ch <- d
	}
	m.durations.Describe(ch)
}

func (m *workerMetrics) Collect(ch chan<- prometheus.Metric) {
	id := string(m.src.ID())
	collectWorker(ch, id, m.cfg.Threads, m.src.Metrics())
	counter(ch, m.pauses, float64(m.src.Pauses()), id)
	counter(ch, m.restarts, float64(m.cfg.Restarts), id)
	counter(ch, m.kills, float64(m.cfg.Kills), id)
	m.durations.Collect(ch)
}
