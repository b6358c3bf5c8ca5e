// Package progress draws where a computation's tasks stand, by kind: bars
// redrawn in place on a terminal, or a line every few seconds where the
// output is a file or a CI log.
//
// Must never import: anything of Dusk but internal/protocol and graph.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/duskdata/dusk/internal/protocol"
)

// LineEvery is how often a Reporter writes a line where the output is not
// a terminal.
const LineEvery = 5 * time.Second

// barWidth is the characters of one bar.
const barWidth = 30

// Reporter draws progress on a writer.
type Reporter struct {
	w     io.Writer
	tty   bool
	start time.Time
	last  time.Time // of the last line written, off a terminal
	lines int       // lines written, off a terminal
	drawn int       // lines drawn last time, on a terminal
	base  map[string]int
}

// New returns a Reporter on w, which draws in place when w is a terminal.
func New(w io.Writer, now time.Time) *Reporter {
	return &Reporter{w: w, tty: IsTerminal(w), start: now, last: now, base: map[string]int{}}
}

// IsTerminal reports whether w is a character device, as a terminal is.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Update draws ps as of now: on a terminal in place of the last drawing;
// elsewhere as one line at the first call, when LineEvery has passed since
// the last, and when final (the computation ended).
func (r *Reporter) Update(ps []protocol.Progress, now time.Time, final bool) {
	for _, p := range ps {
		if _, ok := r.base[p.Prefix]; !ok {
			r.base[p.Prefix] = p.Done + p.Memory // finished before this computation watched
		}
	}
	if r.tty {
		var b strings.Builder
		if r.drawn > 0 {
			fmt.Fprintf(&b, "\x1b[%dA", r.drawn) // back to the first line drawn
		}
		for _, p := range ps {
			b.WriteString("\x1b[2K")
			b.WriteString(r.Line(p, now))
			b.WriteByte('\n')
		}
		r.drawn = len(ps)
		io.WriteString(r.w, b.String())
		return
	}
	if !final && r.lines > 0 && now.Sub(r.last) < LineEvery {
		return
	}
	r.last = now
	r.lines++
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s %d/%d", p.Prefix, p.Done+p.Memory, p.Total())
		if p.Erred > 0 {
			parts[i] += fmt.Sprintf(" (%d erred)", p.Erred)
		}
	}
	fmt.Fprintf(r.w, "[%s] %s\n", now.Sub(r.start).Round(time.Second), strings.Join(parts, ", "))
}

// Line is one kind's bar: finished tasks as '#', running ones as '>',
// erred ones as 'x', with counts, the rate since the Reporter started and
// the time left at that rate.
func (r *Reporter) Line(p protocol.Progress, now time.Time) string {
	total := max(p.Total(), 1)
	finished := p.Done + p.Memory
	cells := func(n int) int { return n * barWidth / total }
	bar := strings.Repeat("#", cells(finished)) + strings.Repeat(">", cells(p.Processing)) + strings.Repeat("x", cells(p.Erred))
	bar += strings.Repeat(" ", max(barWidth-len(bar), 0))
	s := fmt.Sprintf("%-28s |%s| %d/%d", truncate(p.Prefix, 28), bar, finished, p.Total())
	elapsed := now.Sub(r.start).Seconds()
	if rate := float64(finished-r.base[p.Prefix]) / elapsed; elapsed > 0 && rate > 0 {
		s += fmt.Sprintf("  %.1f/s", rate)
		if left := p.Total() - finished - p.Erred; left > 0 {
			s += fmt.Sprintf("  %s left", time.Duration(float64(left)/rate*float64(time.Second)).Round(time.Second))
		}
	}
	if p.Erred > 0 {
		s += fmt.Sprintf("  %d erred", p.Erred)
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
