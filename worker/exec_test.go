package worker

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
)

func init() {
	registry.Register("test-const", func(_ *registry.Context, args []byte, _ []any) (any, error) {
		return strconv.Atoi(string(args))
	})
	registry.Register("test-add", func(_ *registry.Context, _ []byte, in []any) (any, error) {
		sum := 0
		for _, v := range in {
			sum += v.(int)
		}
		return sum, nil
	})
	registry.Register("test-fail", func(_ *registry.Context, args []byte, _ []any) (any, error) {
		return nil, errors.New(string(args))
	})
	registry.Register("test-panic", func(_ *registry.Context, _ []byte, in []any) (any, error) {
		var m map[string]int
		//lint:ignore SA5000 the panic is what the test is about
		m["boom"] = in[0].(int)
		return nil, nil
	})
}

func TestRun(t *testing.T) {
	c := func(key string, v int) *graph.Task {
		return &graph.Task{Key: graph.Key(key), Op: "test-const", Args: []byte(strconv.Itoa(v))}
	}
	add := func(key string, in ...string) *graph.Task {
		t := &graph.Task{Key: graph.Key(key), Op: "test-add"}
		for _, k := range in {
			t.Inputs = append(t.Inputs, graph.Key(k))
		}
		return t
	}
	chain := func(steps ...*graph.Task) *graph.Task {
		g := graph.New()
		for _, s := range steps {
			g.Add(s)
		}
		fused := graph.Fuse(g, []graph.Key{steps[len(steps)-1].Key})
		if fused.Len() != 1 {
			t.Fatalf("steps did not fuse into one task:\n%s", fused)
		}
		return fused.Tasks()[0]
	}
	tests := []struct {
		name    string
		task    *graph.Task
		inputs  []any
		want    int
		wantErr string
	}{
		{name: "plain", task: add("s", "x", "y"), inputs: []any{2, 3}, want: 5},
		{name: "fused chain", task: chain(c("a", 1), add("b", "a"), add("c", "b", "b")), want: 2},
		{name: "fused with outside input", task: chain(add("b", "ext"), add("c", "b", "ext")), inputs: []any{10}, want: 20},
		{name: "error", task: &graph.Task{Key: "f", Op: "test-fail", Args: []byte("bad row 7")}, wantErr: "bad row 7"},
		{name: "error in chain names the step", task: chain(c("a", 1), &graph.Task{Key: "f", Op: "test-fail", Args: []byte("no"), Inputs: []graph.Key{"a"}}),
			wantErr: "in step f: no"},
		{name: "panic", task: &graph.Task{Key: "p", Op: "test-panic", Inputs: []graph.Key{"x"}}, inputs: []any{1},
			wantErr: "the operation crashed (a bug: its stack is in the error's Stack): assignment to entry in nil map"},
		{name: "unknown op", task: &graph.Task{Key: "u", Op: "my-func"}, wantErr: `operation "my-func" is not registered in this worker's binary: register it with dusk.Register("my-func", fn)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Run(context.Background(), tt.task, tt.inputs, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Run = %v, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestRunPanicCarriesStack(t *testing.T) {
	_, err := Run(context.Background(), &graph.Task{Key: "p", Op: "test-panic", Inputs: []graph.Key{"x"}}, []any{1}, nil)
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a *PanicError", err)
	}
	if !strings.Contains(pe.Stack, "exec_test.go") {
		t.Errorf("stack does not show the panicking function:\n%s", pe.Stack)
	}
}
