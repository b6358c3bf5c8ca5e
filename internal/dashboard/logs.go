package dashboard

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// LogLine is one log record as the Logs page shows it.
type LogLine struct {
	Time    int64  `json:"time"` // Unix milliseconds
	Level   string `json:"level"`
	Message string `json:"message"`
	Attrs   string `json:"attrs"` // key=value, space-separated
}

// Logs keeps the last lines logged, for the Logs page.
type Logs struct {
	mu    sync.Mutex
	lines []LogLine
	next  int
	keep  int
}

// LogsKept is how many lines a scheduler keeps for the Logs page.
const LogsKept = 1000

// NewLogs keeps the last n lines.
func NewLogs(n int) *Logs { return &Logs{keep: n} }

func (l *Logs) add(line LogLine) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) < l.keep {
		l.lines = append(l.lines, line)
	} else {
		l.lines[l.next%l.keep] = line
	}
	l.next++
}

// Lines returns the lines kept, oldest first.
func (l *Logs) Lines() []LogLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]LogLine, 0, len(l.lines))
	start := 0
	if len(l.lines) == l.keep {
		start = l.next % l.keep
	}
	for i := range l.lines {
		out = append(out, l.lines[(start+i)%len(l.lines)])
	}
	return out
}

// Handler returns a slog handler that keeps records at info and above in
// l and passes every record on to next.
func (l *Logs) Handler(next slog.Handler) slog.Handler { return &teeHandler{logs: l, next: next} }

type teeHandler struct {
	logs   *Logs
	next   slog.Handler
	prefix string // attributes added with WithAttrs, formatted
	group  string
}

func (h *teeHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelInfo || h.next.Enabled(ctx, level)
}

func (h *teeHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelInfo {
		var b strings.Builder
		b.WriteString(h.prefix)
		r.Attrs(func(a slog.Attr) bool {
			writeAttr(&b, h.group, a)
			return true
		})
		t := r.Time
		if t.IsZero() {
			t = time.Now()
		}
		h.logs.add(LogLine{Time: t.UnixMilli(), Level: r.Level.String(), Message: r.Message, Attrs: strings.TrimSpace(b.String())})
	}
	if h.next.Enabled(ctx, r.Level) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

func (h *teeHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.prefix)
	for _, a := range attrs {
		writeAttr(&b, h.group, a)
	}
	return &teeHandler{logs: h.logs, next: h.next.WithAttrs(attrs), prefix: b.String(), group: h.group}
}

func (h *teeHandler) WithGroup(name string) slog.Handler {
	g := name
	if h.group != "" {
		g = h.group + "." + name
	}
	return &teeHandler{logs: h.logs, next: h.next.WithGroup(name), prefix: h.prefix, group: g}
}

func writeAttr(b *strings.Builder, group string, a slog.Attr) {
	key := a.Key
	if group != "" {
		key = group + "." + key
	}
	fmt.Fprintf(b, " %s=%v", key, a.Value.Resolve())
}
