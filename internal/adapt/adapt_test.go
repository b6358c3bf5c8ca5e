package adapt

import (
	"reflect"
	"testing"
	"time"

	"github.com/duskdata/dusk/internal/protocol"
)

func workers(specs ...protocol.WorkerInfo) []protocol.WorkerInfo { return specs }

func w(name string, processing int, held int64) protocol.WorkerInfo {
	return protocol.WorkerInfo{ID: protocol.WorkerID("127.0.0.1:" + name), Name: name, NThreads: 1, Processing: processing, Held: held}
}

// The pool grows with queued work up to Max, not past it; it shrinks by
// the workers idle for IdleAfter, those holding least first, down to Min;
// busy, retiring and foreign workers are never stopped.
func TestStep(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, c := range []struct {
		name   string
		policy Policy
		steps  []time.Duration // offsets from t0 of the steps before the one checked
		at     time.Duration
		load   Load
		have   []string
		want   Decision
	}{
		{"200 one-second tasks grow the pool to max", Policy{Min: 1, Max: 4},
			nil, 0, Load{Pending: 200, Mean: time.Second, Workers: workers(w("a", 1, 0))}, []string{"a"},
			Decision{Target: 4, Start: 3}},
		{"little work needs one worker", Policy{Min: 0, Max: 4},
			nil, 0, Load{Pending: 3, Mean: time.Millisecond}, nil,
			Decision{Target: 1, Start: 1}},
		{"before any task ran, half a second each", Policy{Min: 0, Max: 10},
			nil, 0, Load{Pending: 40}, nil,
			Decision{Target: 4, Start: 4}},
		{"threads count: two-thread workers need half as many", Policy{Min: 0, Max: 10},
			nil, 0, Load{Pending: 40, Mean: time.Second, Workers: []protocol.WorkerInfo{{Name: "a", NThreads: 2, Processing: 2}}}, []string{"a"},
			Decision{Target: 4, Start: 3}},
		{"idle, but not for long enough", Policy{Min: 1, Max: 4, IdleAfter: 10 * time.Second},
			[]time.Duration{0}, 5 * time.Second, Load{Workers: workers(w("a", 0, 0), w("b", 0, 0))}, []string{"a", "b"},
			Decision{Target: 1}},
		{"idle long enough: the one holding least goes", Policy{Min: 1, Max: 4, IdleAfter: 10 * time.Second},
			[]time.Duration{0}, 10 * time.Second, Load{Workers: workers(w("a", 0, 500), w("b", 0, 100), w("c", 0, 900))}, []string{"a", "b", "c"},
			Decision{Target: 1, Stop: []string{"b", "a"}}},
		{"busy workers stay", Policy{Min: 0, Max: 4, IdleAfter: time.Second},
			[]time.Duration{0}, 2 * time.Second, Load{Pending: 1, Mean: time.Millisecond, Workers: workers(w("a", 1, 0), w("b", 0, 0))}, []string{"a", "b"},
			Decision{Target: 1, Stop: []string{"b"}}},
		{"a worker the provider did not start is not stopped", Policy{Min: 0, Max: 4, IdleAfter: time.Second},
			[]time.Duration{0}, 2 * time.Second, Load{Workers: workers(w("mine", 0, 0), w("theirs", 0, 0))}, []string{"mine"},
			Decision{Target: 0, Stop: []string{"mine"}}},
	} {
		a := New(c.policy)
		for _, s := range c.steps {
			a.Step(t0.Add(s), c.load, c.have)
		}
		got := a.Step(t0.Add(c.at), c.load, c.have)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
