package dashboard

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
)

// The log ring keeps the last lines, oldest first, with the attributes of
// the logger and of the record, and passes records on.
func TestLogs(t *testing.T) {
	logs := NewLogs(3)
	var passed int
	log := slog.New(logs.Handler(countHandler{&passed})).With("worker", "w1")
	for i := range 5 {
		log.Info(fmt.Sprintf("line %d", i), "n", i)
	}
	log.Debug("not kept")
	got := logs.Lines()
	if len(got) != 3 {
		t.Fatalf("%d lines kept, want 3", len(got))
	}
	for i, l := range got {
		if want := fmt.Sprintf("line %d", i+2); l.Message != want || l.Level != "INFO" || l.Attrs != fmt.Sprintf("worker=w1 n=%d", i+2) || l.Worker != "w1" {
			t.Errorf("line %d: %+v, want %s with worker=w1 n=%d", i, l, want, i+2)
		}
	}
	if passed != 6 {
		t.Errorf("%d records passed on, want 6", passed)
	}
}

type countHandler struct{ n *int }

func (h countHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (h countHandler) Handle(context.Context, slog.Record) error { *h.n++; return nil }
func (h countHandler) WithAttrs([]slog.Attr) slog.Handler        { return h }
func (h countHandler) WithGroup(string) slog.Handler             { return h }

// Since hands out each line once, the latest when more came than asked
// for, and none of those the ring no longer keeps.
func TestLogsSince(t *testing.T) {
	logs := NewLogs(4)
	add := func(from, to int) {
		for i := from; i < to; i++ {
			logs.Add(LogLine{Message: fmt.Sprint(i)})
		}
	}
	messages := func(lines []LogLine) (out []string) {
		for _, l := range lines {
			out = append(out, l.Message)
		}
		return out
	}
	add(0, 2)
	got, next := logs.Since(0, 10)
	if fmt.Sprint(messages(got)) != "[0 1]" || next != 2 {
		t.Fatalf("first: %v next %d, want [0 1] next 2", messages(got), next)
	}
	if got, n := logs.Since(next, 10); len(got) != 0 || n != 2 {
		t.Fatalf("nothing new: %v next %d", messages(got), n)
	}
	add(2, 9) // 2..4 fall out of the ring
	got, next = logs.Since(next, 3)
	if fmt.Sprint(messages(got)) != "[6 7 8]" || next != 9 {
		t.Fatalf("after more: %v next %d, want [6 7 8] next 9", messages(got), next)
	}
	if got := messages(logs.Lines()); fmt.Sprint(got) != "[5 6 7 8]" {
		t.Fatalf("lines kept: %v, want [5 6 7 8]", got)
	}
}
