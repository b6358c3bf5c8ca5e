// Package report writes performance reports, as Dask's performance_report:
// one self-contained HTML file of what a cluster did during a run — its
// task stream, time by task kind, transfers, spills, each worker's share,
// and the workers' CPU profile merged — readable without a network.
//
// Must never import: scheduler, scheduler/server, worker/process, a transport, or the
// collections: it is given what happened and draws it.
package report

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"time"

	"github.com/google/pprof/profile"

	"github.com/duskdata/dusk/internal/dashboard"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/worker"
)

// Run is what happened during the run reported on.
type Run struct {
	Start, Stop time.Time
	// Err is the run's failure, if it failed.
	Err error
	// Records are the task stream's records of the run (task runs,
	// transfers, disk I/O).
	Records []protocol.TaskRecord
	// Lost is how many records the scheduler no longer kept.
	Lost uint64
	// Workers are the workers at the end; Before, at the start (their wire
	// counters, less these, are the run's traffic).
	Workers, Before []protocol.WorkerInfo
	Profiles        []protocol.ProfileData
}

// Report is a run summed up: what the file shows, and what its data block
// holds for programs (a script element of id "report-data").
type Report struct {
	Seconds float64 `json:"seconds"`
	Err     string  `json:"err,omitempty"`
	Tasks   int     `json:"tasks"`
	Threads int     `json:"threads"`
	// Busy is the share of the threads' time spent running tasks.
	Busy    float64      `json:"busy"`
	Kinds   []Kind       `json:"kinds"`
	Moves   []Kind       `json:"moves"` // transfers and disk I/O, by kind
	Workers []WorkerLine `json:"workers"`
	Lost    uint64       `json:"lost,omitempty"`
	// Profile is the workers' CPU profile merged: its top functions, and
	// why some worker's is missing.
	Profile Profile `json:"profile"`
}

// Kind sums up the records of one kind.
type Kind struct {
	Name    string  `json:"name"`
	Count   int     `json:"count"`
	Seconds float64 `json:"seconds"`
	MaxMs   float64 `json:"max_ms"`
	Bytes   int64   `json:"bytes"`
}

// WorkerLine is one worker's part of the run.
type WorkerLine struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Threads     int     `json:"threads"`
	Tasks       int     `json:"tasks"`
	TaskSeconds float64 `json:"task_seconds"`
	Received    int64   `json:"received"`
	Spilled     int64   `json:"spilled"`
	// WireSent and WireReceived are the bytes its connections carried
	// during the run, compressed as they went (0 in the local cluster).
	WireSent     int64 `json:"wire_sent"`
	WireReceived int64 `json:"wire_received"`
}

// Profile is the merged CPU profile's summary.
type Profile struct {
	// Workers are those whose profile is in it; Missing says why others'
	// are not (workers sharing a process's profile are not missing).
	Workers []string          `json:"workers"`
	Missing map[string]string `json:"missing,omitempty"`
	Seconds float64           `json:"seconds"` // CPU time sampled
	Top     []Function        `json:"top"`
	data    []byte            // the merged profile, gzipped protobuf
}

// Function is one function's CPU time in the profile: Flat in itself,
// Cum with what it called.
type Function struct {
	Name string  `json:"name"`
	Flat float64 `json:"flat"`
	Cum  float64 `json:"cum"`
}

// topFunctions is how many functions the report lists.
const topFunctions = 30

// Summarize sums up r.
func Summarize(r Run) Report {
	rep := Report{Seconds: r.Stop.Sub(r.Start).Seconds(), Lost: r.Lost, Profile: Profile{Missing: map[string]string{}}}
	if r.Err != nil {
		rep.Err = r.Err.Error()
	}
	workers := map[protocol.WorkerID]*WorkerLine{}
	for _, w := range r.Workers {
		rep.Threads += w.NThreads
		workers[w.ID] = &WorkerLine{ID: string(w.ID), Name: w.Name, Threads: w.NThreads}
		rep.Workers = append(rep.Workers, WorkerLine{})
	}
	kinds, moves := map[string]*Kind{}, map[string]*Kind{}
	var taskSeconds float64
	for _, rec := range r.Records {
		d := rec.Stop.Sub(rec.Start)
		into := kinds
		if rec.Kind != "" {
			into = moves
		}
		k := into[rec.Prefix]
		if k == nil {
			k = &Kind{Name: rec.Prefix}
			into[rec.Prefix] = k
		}
		k.Count++
		k.Seconds += d.Seconds()
		k.MaxMs = max(k.MaxMs, float64(d)/1e6)
		k.Bytes += rec.Nbytes
		w := workers[rec.Worker]
		if w == nil {
			continue // a worker gone since
		}
		switch rec.Kind {
		case "":
			rep.Tasks++
			taskSeconds += d.Seconds()
			w.Tasks++
			w.TaskSeconds += d.Seconds()
		case protocol.RecordTransfer:
			w.Received += rec.Nbytes
		case protocol.RecordDiskWrite:
			w.Spilled += rec.Nbytes
		}
	}
	if rep.Threads > 0 && rep.Seconds > 0 {
		rep.Busy = taskSeconds / (float64(rep.Threads) * rep.Seconds)
	}
	before := map[protocol.WorkerID]protocol.WorkerInfo{}
	for _, w := range r.Before {
		before[w.ID] = w
	}
	for i, w := range r.Workers {
		line := workers[w.ID]
		b := before[w.ID] // zero for a worker that joined during the run
		line.WireSent, line.WireReceived = w.WireSent-b.WireSent, w.WireReceived-b.WireReceived
		rep.Workers[i] = *line
	}
	rep.Kinds, rep.Moves = sorted(kinds), sorted(moves)
	rep.Profile = merge(r.Profiles)
	return rep
}

// sorted lists the kinds, the most time first.
func sorted(m map[string]*Kind) []Kind {
	out := make([]Kind, 0, len(m))
	for _, k := range m {
		out = append(out, *k)
	}
	slices.SortFunc(out, func(a, b Kind) int {
		return cmp.Or(cmp.Compare(b.Seconds, a.Seconds), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// merge merges the workers' profiles and finds their top functions.
func merge(data []protocol.ProfileData) Profile {
	p := Profile{Missing: map[string]string{}}
	var profs []*profile.Profile
	for _, d := range data {
		switch {
		case len(d.Data) > 0:
			prof, err := profile.ParseData(d.Data)
			if err != nil {
				p.Missing[string(d.Worker)] = fmt.Sprintf("its profile does not parse: %v", err)
				continue
			}
			profs = append(profs, prof)
			p.Workers = append(p.Workers, string(d.Worker))
		case d.Err != "":
			p.Missing[string(d.Worker)] = d.Err
		}
	}
	if len(profs) == 0 {
		return p
	}
	merged, err := profile.Merge(profs)
	if err != nil {
		for _, w := range p.Workers {
			p.Missing[w] = fmt.Sprintf("the profiles do not merge: %v", err)
		}
		p.Workers = nil
		return p
	}
	var buf bytes.Buffer
	if merged.Write(&buf) == nil {
		p.data = buf.Bytes()
	}
	p.Seconds, p.Top = top(merged)
	return p
}

// top sums the CPU time of each function, flat and cumulative, and lists
// the topFunctions with the most flat time; the total is in seconds.
func top(p *profile.Profile) (float64, []Function) {
	vi := len(p.SampleType) - 1 // cpu nanoseconds, after the sample count
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			vi = i
		}
	}
	if vi < 0 {
		return 0, nil
	}
	flat, cum := map[string]int64{}, map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		v := s.Value[vi]
		total += v
		seen := map[string]bool{}
		for i, loc := range s.Location {
			for j, line := range loc.Line {
				if line.Function == nil {
					continue
				}
				name := line.Function.Name
				if i == 0 && j == 0 {
					flat[name] += v
				}
				if !seen[name] {
					seen[name] = true
					cum[name] += v
				}
			}
		}
	}
	out := make([]Function, 0, len(cum))
	for name, c := range cum {
		out = append(out, Function{Name: name, Flat: float64(flat[name]) / 1e9, Cum: float64(c) / 1e9})
	}
	slices.SortFunc(out, func(a, b Function) int {
		return cmp.Or(cmp.Compare(b.Flat, a.Flat), cmp.Compare(b.Cum, a.Cum), cmp.Compare(a.Name, b.Name))
	})
	return float64(total) / 1e9, out[:min(len(out), topFunctions)]
}

// streamShown bounds the records the file's task stream draws.
const streamShown = 50000

//go:embed report.html
var page string

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"bytes": worker.FormatBytes,
	"pct":   func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"secs":  func(f float64) string { return fmt.Sprintf("%.3f s", f) },
	"ms":    func(f float64) string { return fmt.Sprintf("%.1f ms", f) },
	"mean": func(k Kind) string {
		if k.Count == 0 {
			return ""
		}
		return fmt.Sprintf("%.1f ms", 1000*k.Seconds/float64(k.Count))
	},
}).Parse(page))

// Write writes r's report as one HTML file.
func Write(w io.Writer, r Run) error {
	rep := Summarize(r)
	recs := r.Records
	if len(recs) > streamShown {
		recs = recs[len(recs)-streamShown:]
	}
	stream := make([]dashboard.Record, len(recs))
	for i, rec := range recs {
		stream[i] = dashboard.RecordOf(rec)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		return fmt.Errorf("performance report: %w", err)
	}
	streamJSON, err := json.Marshal(stream)
	if err != nil {
		return fmt.Errorf("performance report: %w", err)
	}
	var profileURL string
	if len(rep.Profile.data) > 0 {
		profileURL = "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(rep.Profile.data)
	}
	return tmpl.Execute(w, map[string]any{
		"R":       rep,
		"Start":   r.Start.Format(time.RFC3339),
		"StartMs": r.Start.UnixMilli(),
		"Script":  template.JS(dashboard.StreamScript),
		"Data":    template.JS(data),
		"Stream":  template.JS(streamJSON),
		"Shown":   len(stream),
		"All":     len(r.Records),
		"Profile": template.URL(profileURL),
	})
}
