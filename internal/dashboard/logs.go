package dashboard

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/duskdata/dusk/internal/protocol"
)

// LogLine is one log record as the Logs page shows it.
type LogLine = protocol.LogLine

// Logs keeps the last lines logged, for the Logs page.
type Logs struct {
	mu    sync.Mutex
	lines []LogLine
	next  uint64 // the number of the next line
	keep  int
}

// LogsKept is how many lines a scheduler keeps for the Logs page.
const LogsKept = 1000

// NewLogs keeps the last n lines.
func NewLogs(n int) *Logs { return &Logs{keep: n} }

// Add keeps line (one a worker sent on, say).
func (l *Logs) Add(line LogLine) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) < l.keep {
		l.lines = append(l.lines, line)
	} else {
		l.lines[l.next%uint64(l.keep)] = line
	}
	l.next++
}

// Lines returns the lines kept, oldest first.
func (l *Logs) Lines() []LogLine {
	lines, _ := l.Since(0, l.keep)
	return lines
}

// Since returns the lines numbered since and later that are kept, at most
// the latest max of them, oldest first, and the number of the next line.
func (l *Logs) Since(since uint64, most int) ([]LogLine, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	next := l.next
	since = max(since, next-uint64(min(most, len(l.lines))))
	if since >= next {
		return nil, next
	}
	out := make([]LogLine, 0, next-since)
	for n := since; n < next; n++ {
		out = append(out, l.lines[n%uint64(l.keep)])
	}
	return out, next
}

// Handler returns a slog handler that keeps records at info and above in
// l and passes every record on to next.
func (l *Logs) Handler(next slog.Handler) slog.Handler { return &teeHandler{logs: l, next: next} }

type teeHandler struct {
	logs   *Logs
	next   slog.Handler
	prefix string // attributes added with WithAttrs, formatted
	group  string
	worker string // the value of a "worker" attribute added, the line's source
}

func (h *teeHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelInfo || h.next.Enabled(ctx, level)
}

func (h *teeHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelInfo {
		var b strings.Builder
		b.WriteString(h.prefix)
		worker := h.worker
		r.Attrs(func(a slog.Attr) bool {
			writeAttr(&b, h.group, a)
			if a.Key == "worker" && h.group == "" {
				worker = a.Value.String()
			}
			return true
		})
		t := r.Time
		if t.IsZero() {
			t = time.Now()
		}
		h.logs.Add(LogLine{Time: t.UnixMilli(), Level: r.Level.String(), Message: r.Message,
			Attrs: strings.TrimSpace(b.String()), Worker: worker})
	}
	if h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

func (h *teeHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.prefix)
	worker := h.worker
	for _, a := range attrs {
		writeAttr(&b, h.group, a)
		if a.Key == "worker" && h.group == "" {
			worker = a.Value.String()
		}
	}
	return &teeHandler{logs: h.logs, next: h.next.WithAttrs(attrs), prefix: b.String(), group: h.group, worker: worker}
}

func (h *teeHandler) WithGroup(name string) slog.Handler {
	g := name
	if h.group != "" {
		g = h.group + "." + name
	}
	return &teeHandler{logs: h.logs, next: h.next.WithGroup(name), prefix: h.prefix, group: g, worker: h.worker}
}

func writeAttr(b *strings.Builder, group string, a slog.Attr) {
	key := a.Key
	if group != "" {
		key = group + "." + key
	}
	fmt.Fprintf(b, " %s=%v", key, a.Value.Resolve())
}
