package scheduler

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// shared is what the scheduler keeps for clients to share, by name: Dask's
// Variable, Queue, Lock and Event, and published datasets. Requests that
// cannot go on yet wait here, in arrival order, until another request lets
// them, their client cancels them, or their client is lost.
type shared struct {
	vars     map[string][]byte
	queues   map[string][][]byte
	locks    map[string]holder // held locks
	events   map[string]bool   // set events
	datasets map[string]dataset
	waiting  []waiter // requests that wait, oldest first
}

// holder is who holds a lock: a client and the token of its Lock value.
type holder struct {
	client protocol.ClientID
	token  string
}

type dataset struct {
	keys []graph.Key
	desc []byte
}

// waiter is a request that waits for its resource.
type waiter struct {
	client protocol.ClientID
	m      *protocol.Shared
}

func newShared() *shared {
	return &shared{vars: map[string][]byte{}, queues: map[string][][]byte{}, locks: map[string]holder{},
		events: map[string]bool{}, datasets: map[string]dataset{}}
}

// sharedOp is one operation: it answers at once (wait false) or, when it
// cannot go on yet, waits (wait true; try is called again whenever shared
// state changes).
type sharedOp func(s *State, c protocol.ClientID, m *protocol.Shared) (r *protocol.SharedReply, wait bool)

// sharedOps describes each operation once.
var sharedOps = map[protocol.SharedOp]sharedOp{
	protocol.SharedVarSet: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		s.shared.vars[m.Name] = m.Value
		return &protocol.SharedReply{}, false
	},
	// A variable never set makes its getter wait, as Dask's Variable.get.
	protocol.SharedVarGet: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		v, ok := s.shared.vars[m.Name]
		return &protocol.SharedReply{Value: v, Found: ok}, !ok
	},
	protocol.SharedVarDelete: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		delete(s.shared.vars, m.Name)
		return &protocol.SharedReply{}, false
	},
	protocol.SharedQueuePut: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		s.shared.queues[m.Name] = append(s.shared.queues[m.Name], m.Value)
		return &protocol.SharedReply{N: len(s.shared.queues[m.Name])}, false
	},
	protocol.SharedQueueGet: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		q := s.shared.queues[m.Name]
		if len(q) == 0 {
			return nil, true
		}
		s.shared.queues[m.Name] = q[1:]
		if len(q) == 1 {
			delete(s.shared.queues, m.Name)
		}
		return &protocol.SharedReply{Value: q[0], Found: true, N: len(q) - 1}, false
	},
	protocol.SharedQueueLen: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		return &protocol.SharedReply{N: len(s.shared.queues[m.Name])}, false
	},
	protocol.SharedLockAcquire: func(s *State, c protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		if _, held := s.shared.locks[m.Name]; held {
			return nil, true
		}
		s.shared.locks[m.Name] = holder{client: c, token: string(m.Value)}
		return &protocol.SharedReply{Found: true}, false
	},
	protocol.SharedLockRelease: func(s *State, c protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		if h, held := s.shared.locks[m.Name]; !held || h != (holder{client: c, token: string(m.Value)}) {
			return &protocol.SharedReply{Err: fmt.Sprintf("lock %q is not held by this Lock", m.Name)}, false
		}
		delete(s.shared.locks, m.Name)
		return &protocol.SharedReply{}, false
	},
	protocol.SharedEventSet: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		s.shared.events[m.Name] = true
		return &protocol.SharedReply{}, false
	},
	protocol.SharedEventClear: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		delete(s.shared.events, m.Name)
		return &protocol.SharedReply{}, false
	},
	protocol.SharedEventWait: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		set := s.shared.events[m.Name]
		return &protocol.SharedReply{Found: set}, !set
	},
	protocol.SharedEventIsSet: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		return &protocol.SharedReply{Found: s.shared.events[m.Name]}, false
	},
	// A published dataset's keys are wanted by the scheduler itself, so
	// that they outlive the client that published them.
	protocol.SharedPublish: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		if _, ok := s.shared.datasets[m.Name]; ok {
			return &protocol.SharedReply{Err: fmt.Sprintf("a dataset named %q is already published", m.Name)}, false
		}
		for _, k := range m.Keys {
			if t := s.tasks.get(k); t == nil || t.state != Memory && !t.needed() {
				return &protocol.SharedReply{Err: fmt.Sprintf("dataset %q: partition %s is not held or computing on the cluster", m.Name, k)}, false
			}
		}
		s.shared.datasets[m.Name] = dataset{keys: m.Keys, desc: m.Value}
		s.updateGraph(protocol.DatasetClient(m.Name), &protocol.UpdateGraph{Keys: m.Keys})
		return &protocol.SharedReply{}, false
	},
	protocol.SharedDataset: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		d, ok := s.shared.datasets[m.Name]
		return &protocol.SharedReply{Keys: d.keys, Value: d.desc, Found: ok}, false
	},
	protocol.SharedUnpublish: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		d, ok := s.shared.datasets[m.Name]
		if ok {
			delete(s.shared.datasets, m.Name)
			s.releaseKeys(protocol.DatasetClient(m.Name), d.keys)
		}
		return &protocol.SharedReply{Found: ok}, false
	},
	protocol.SharedDatasets: func(s *State, _ protocol.ClientID, _ *protocol.Shared) (*protocol.SharedReply, bool) {
		names := make([]string, 0, len(s.shared.datasets))
		for n := range s.shared.datasets {
			names = append(names, n)
		}
		sort.Strings(names)
		b, _ := json.Marshal(names)
		return &protocol.SharedReply{Value: b}, false
	},
	// Fire and forget: the scheduler wants the keys until each is computed
	// or fails, whatever becomes of the client.
	protocol.SharedForget: func(s *State, _ protocol.ClientID, m *protocol.Shared) (*protocol.SharedReply, bool) {
		s.updateGraph(protocol.FireAndForget, &protocol.UpdateGraph{Keys: m.Keys})
		return &protocol.SharedReply{}, false
	},
}

// sharedRequest handles a client's Shared request.
func (s *State) sharedRequest(c protocol.ClientID, m *protocol.Shared) {
	if m.Op == protocol.SharedCancel {
		s.cancelShared(c, m.Target)
		return
	}
	op := sharedOps[m.Op]
	if op == nil {
		s.send2(c, &protocol.SharedReply{ID: m.ID, Err: fmt.Sprintf("unknown shared operation %d", m.Op)})
		return
	}
	r, wait := op(s, c, m)
	if wait {
		s.shared.waiting = append(s.shared.waiting, waiter{client: c, m: m})
		return
	}
	r.ID = m.ID
	s.send2(c, r)
	s.wakeShared()
}

// wakeShared lets waiting requests go on, oldest first, until none can.
func (s *State) wakeShared() {
	for progress := true; progress; {
		progress = false
		for i, w := range s.shared.waiting {
			r, wait := sharedOps[w.m.Op](s, w.client, w.m)
			if wait {
				continue
			}
			s.shared.waiting = slices.Delete(s.shared.waiting, i, i+1)
			r.ID = w.m.ID
			s.send2(w.client, r)
			progress = true
			break
		}
	}
}

// cancelShared gives up client c's waiting request id, answering it as
// cancelled; a request already answered is left as it went.
func (s *State) cancelShared(c protocol.ClientID, id uint64) {
	for i, w := range s.shared.waiting {
		if w.client == c && w.m.ID == id {
			s.shared.waiting = slices.Delete(s.shared.waiting, i, i+1)
			s.send2(c, &protocol.SharedReply{ID: id, Err: "cancelled"})
			return
		}
	}
}

// sharedClientLost forgets the waits of a client that is gone and frees
// the locks it held.
func (s *State) sharedClientLost(c protocol.ClientID) {
	s.shared.waiting = slices.DeleteFunc(s.shared.waiting, func(w waiter) bool { return w.client == c })
	for name, h := range s.shared.locks {
		if h.client == c {
			delete(s.shared.locks, name)
		}
	}
	s.wakeShared()
}
