// Package dashboard serves the scheduler's window for people: live pages
// (the task stream, progress by task kind, the workers' memory, a table of
// workers) drawn in the browser from files embedded in the binary, fed by
// server-sent events, and the JSON they read; its Prometheus /metrics; and
// a worker's own /metrics. It knows the cluster only through Source and
// WorkerSource, so that it serves the local cluster and the daemons alike.
//
// Must never import: scheduler, worker, scheduler/server, worker/process, a transport, or
// the collections.
package dashboard

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// Source is what the dashboard shows, read under the scheduler's lock.
type Source interface {
	Workers() []protocol.WorkerInfo
	Progress() []protocol.Progress
	// TaskStream returns the records numbered since and later, and the
	// number of the next record.
	TaskStream(since uint64) ([]protocol.TaskRecord, uint64)
}

// Grouped is a Source that describes the graph by task kind (the Graph page).
type Grouped interface{ Groups() []protocol.Group }

// TaskLookup is a Source that describes one task (the Tasks page), with
// its last run in the task stream if it is still kept.
type TaskLookup interface {
	TaskInfo(graph.Key) (protocol.TaskInfo, *protocol.TaskRecord, bool)
}

// Task is a task as the Tasks page shows it.
type Task struct {
	protocol.TaskInfo
	Ran *Record `json:"ran,omitempty"`
}

// Interval is how often a page connected to the event stream is updated.
const Interval = 500 * time.Millisecond

//go:embed static
var static embed.FS

// StreamScript is the script that draws the task stream (drawBars) and
// colours task kinds (colour), for the performance report to inline, so
// that it draws a run as the pages do.
//
//go:embed static/stream.js
var StreamScript string

// pages are the dashboard's pages, in the order of its menu.
var pages = []string{"status", "workers", "graph", "tasks", "logs"}

// Config says where and how the dashboard is served.
type Config struct {
	// Addr is where it listens; one ending in ":0" takes a free port.
	Addr string
	// Fallback takes a free port when Addr's is in use (a local cluster's
	// default, when another cluster has 8787).
	Fallback bool
	// Pprof serves Go's profiles under /debug/pprof/.
	Pprof bool
	Log   *slog.Logger
	// Logs, if set, are the recent log lines the Logs page shows.
	Logs *Logs
}

// Handler serves the dashboard of src.
func Handler(src Source, cfg Config) http.Handler {
	log := cfg.Log
	mux := http.NewServeMux()
	files, _ := fs.Sub(static, "static")
	page, _ := fs.ReadFile(files, "page.html")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(files)))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/status", http.StatusFound)
	})
	for _, name := range pages {
		mux.HandleFunc("GET /"+name, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(page)
		})
	}
	mux.HandleFunc("GET /api/status", func(w http.ResponseWriter, r *http.Request) {
		var since uint64
		fmt.Sscan(r.URL.Query().Get("since"), &since)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(snapshot(src, since))
	})
	mux.HandleFunc("GET /api/events", func(w http.ResponseWriter, r *http.Request) {
		events(w, r, src, log)
	})
	if o, ok := src.(Observed); ok {
		mux.Handle("GET /metrics", metricsHandler(newMetrics(o)))
	}
	if g, ok := src.(Grouped); ok {
		mux.HandleFunc("GET /api/graph", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(g.Groups())
		})
	}
	if tl, ok := src.(TaskLookup); ok {
		mux.HandleFunc("GET /api/task", func(w http.ResponseWriter, r *http.Request) {
			info, rec, ok := tl.TaskInfo(graph.Key(r.URL.Query().Get("key")))
			if !ok {
				http.Error(w, "no task of that key", http.StatusNotFound)
				return
			}
			out := Task{TaskInfo: info}
			if rec != nil {
				ran := RecordOf(*rec)
				out.Ran = &ran
			}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(out)
		})
	}
	mux.HandleFunc("GET /api/logs", func(w http.ResponseWriter, r *http.Request) {
		lines := []LogLine{}
		if cfg.Logs != nil {
			lines = cfg.Logs.Lines()
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(lines)
	})
	if cfg.Pprof {
		servePprof(mux)
	}
	return mux
}

// servePprof serves Go's profiles under /debug/pprof/.
func servePprof(mux *http.ServeMux) {
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
}

// Status is one update of the pages: the workers, progress by task kind,
// and the task stream's records since the last update.
type Status struct {
	Time     int64               `json:"time"` // Unix milliseconds
	Workers  []Worker            `json:"workers"`
	Progress []protocol.Progress `json:"progress"`
	Stream   []Record            `json:"stream"`
	Next     uint64              `json:"next"` // the number of the next record
	// Tasks counts the tasks run so far (the pages' tasks per second),
	// where the source counts them.
	Tasks int64 `json:"tasks"`
}

// Worker is a worker as the pages show it.
type Worker struct {
	protocol.WorkerInfo
	Unmanaged int64 `json:"unmanaged"`
}

// Record is a task stream record with times in milliseconds since the
// Unix epoch, as the browser counts.
type Record struct {
	Key    string  `json:"key"`
	Prefix string  `json:"prefix"`
	Worker string  `json:"worker"`
	Thread int     `json:"thread"`
	Start  float64 `json:"start"`
	Stop   float64 `json:"stop"`
	Nbytes int64   `json:"nbytes"`
	Kind   string  `json:"kind,omitempty"` // "" for a task run, else transfer, disk-write, disk-read
	Peer   string  `json:"peer,omitempty"` // a transfer's source
}

// streamSent bounds the records one update carries, as Dask's task stream
// draws its last 1,000 rectangles: while thousands of tasks a second run,
// the page draws the latest of each update (and keeps the last 2,000), and
// the scheduler copies and encodes no more.
const streamSent = 500

func snapshot(src Source, since uint64) Status {
	if _, next := src.TaskStream(^uint64(0)); next > streamSent {
		since = max(since, next-streamSent)
	}
	recs, next := src.TaskStream(since)
	st := Status{Time: time.Now().UnixMilli(), Progress: src.Progress(), Next: next,
		Stream: make([]Record, len(recs))}
	if o, ok := src.(Observed); ok {
		st.Tasks = o.Events().Tasks
	}
	for _, w := range src.Workers() {
		st.Workers = append(st.Workers, Worker{WorkerInfo: w, Unmanaged: w.Memory.Unmanaged()})
	}
	for i, r := range recs {
		st.Stream[i] = RecordOf(r)
	}
	return st
}

// RecordOf is r as the pages (and the performance report) read it.
func RecordOf(r protocol.TaskRecord) Record {
	return Record{Key: string(r.Key), Prefix: r.Prefix, Worker: string(r.Worker), Thread: r.Thread,
		Start: ms(r.Start), Stop: ms(r.Stop), Nbytes: r.Nbytes, Kind: r.Kind, Peer: string(r.Peer)}
}

func ms(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }

// events streams a Status every Interval as server-sent events until the
// browser goes away; each carries the task stream's records since the last.
func events(w http.ResponseWriter, r *http.Request, src Source, log *slog.Logger) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	var next uint64 // a page that opens shows the recent past
	tick := time.NewTicker(Interval)
	defer tick.Stop()
	for {
		st := snapshot(src, next)
		next = st.Next
		b, err := json.Marshal(st)
		if err != nil {
			log.Warn("dashboard: encode status", "err", err)
			return
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return
		}
		flusher.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
	}
}

// DefaultPort is the dashboard's port unless told otherwise, as Dask's.
const DefaultPort = "8787"

// Serve serves the dashboard of src in the background as cfg says, and
// returns the server and the address it listens on.
func Serve(src Source, cfg Config) (*http.Server, string, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil && cfg.Fallback {
		host, _, _ := net.SplitHostPort(cfg.Addr)
		ln, err = net.Listen("tcp", net.JoinHostPort(host, "0"))
	}
	if err != nil {
		return nil, "", fmt.Errorf("dashboard on %s: %w", cfg.Addr, err)
	}
	return serve(Handler(src, cfg), ln, cfg.Log), ln.Addr().String(), nil
}

// serve serves h on ln in the background.
func serve(h http.Handler, ln net.Listener, log *slog.Logger) *http.Server {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			log.Warn("dashboard stopped", "err", err)
		}
	}()
	return srv
}
