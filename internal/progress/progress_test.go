package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/duskdata/dusk/internal/protocol"
)

func TestLine(t *testing.T) {
	t0 := time.Unix(1000, 0)
	cases := []struct {
		p    protocol.Progress
		at   time.Duration
		want string
	}{
		{protocol.Progress{Prefix: "read-csv", Waiting: 30, Processing: 10, Memory: 10, Done: 10}, 10 * time.Second,
			"read-csv                     |##########>>>>>               | 20/60  2.0/s  20s left"},
		{protocol.Progress{Prefix: "groupby", Memory: 8}, 4 * time.Second,
			"groupby                      |##############################| 8/8  2.0/s"},
		{protocol.Progress{Prefix: "sum", Waiting: 2, Erred: 2}, time.Second,
			"sum                          |xxxxxxxxxxxxxxx               | 0/4  2 erred"},
		{protocol.Progress{Prefix: "a-rather-long-task-kind-of-a-name", Waiting: 1}, time.Second,
			"a-rather-long-task-kind-of-… |                              | 0/1"},
	}
	for _, c := range cases {
		r := New(&bytes.Buffer{}, t0)
		if got := r.Line(c.p, t0.Add(c.at)); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.p.Prefix, got, c.want)
		}
	}
}

// Off a terminal, a line at once, then every LineEvery, and one at the end.
func TestLinesOffATerminal(t *testing.T) {
	var out bytes.Buffer
	t0 := time.Unix(1000, 0)
	r := New(&out, t0)
	ps := []protocol.Progress{{Prefix: "read", Waiting: 3, Memory: 1}, {Prefix: "sum", Waiting: 1}}
	for s := 1; s <= 12; s++ {
		r.Update(ps, t0.Add(time.Duration(s)*time.Second), false)
	}
	ps = []protocol.Progress{{Prefix: "read", Done: 4}, {Prefix: "sum", Memory: 1, Erred: 0}}
	r.Update(ps, t0.Add(13*time.Second), true)
	want := "[1s] read 1/4, sum 0/1\n[6s] read 1/4, sum 0/1\n[11s] read 1/4, sum 0/1\n[13s] read 4/4, sum 1/1\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Error("escape codes off a terminal")
	}
}
