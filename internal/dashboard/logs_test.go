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
		if want := fmt.Sprintf("line %d", i+2); l.Message != want || l.Level != "INFO" || l.Attrs != fmt.Sprintf("worker=w1 n=%d", i+2) {
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
