package server

// Profiles for performance reports: the scheduler relays a client's start
// and stop to every worker and gathers their profiles (the worker's side
// is worker/process/profile.go).

import (
	"os"

	"github.com/duskdata/dusk/internal/procmem"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/transport"
)

// profiles is the scheduler's side: the stops under way, and the clients
// that started profiles.
type profiles struct {
	waits     map[uint64]*profileWait // by the scheduler's ID
	lastID    uint64
	profilers map[protocol.ClientID]int // profiles started and not stopped
}

// profileWait is a stop a client asked for, until every worker answered.
type profileWait struct {
	client  transport.Stream
	id      uint64 // the client's
	waiting map[protocol.WorkerID]bool
	got     []protocol.ProfileData
}

// driverMsg handles what the driver answers itself, not the core: task
// stream queries and profiles. It reports whether m was one of those.
func (s *Scheduler) driverMsg(worker protocol.WorkerID, client protocol.ClientID, st transport.Stream, m protocol.Msg) bool {
	switch m := m.(type) {
	case *protocol.TaskStreamQuery:
		if client == "" {
			return false
		}
		recs, next := s.stream.since(m.Since)
		st.Send([]protocol.Msg{&protocol.TaskStreamReply{ID: m.ID, Records: recs, Next: next}})
	case *protocol.Profile:
		if client == "" {
			return false
		}
		s.profile(client, st, m)
	case *protocol.Adapt:
		if client == "" {
			return false
		}
		st.Send([]protocol.Msg{s.adapt(m)})
	case *protocol.SchedulerQuery:
		if client == "" {
			return false
		}
		pid := os.Getpid()
		st.Send([]protocol.Msg{&protocol.SchedulerReply{ID: m.ID, RSS: procmem.RSS(pid), PeakRSS: procmem.PeakRSS(pid)}})
	case *protocol.ProfileData:
		if worker == "" {
			return false
		}
		if w := s.profiles.waits[m.ID]; w != nil && w.waiting[worker] {
			delete(w.waiting, worker)
			m.Worker = worker
			w.got = append(w.got, *m)
			s.profileAnswered(m.ID)
		}
	default:
		return false
	}
	return true
}

// profile relays a client's start or stop to every worker.
func (s *Scheduler) profile(client protocol.ClientID, st transport.Stream, m *protocol.Profile) {
	p := &s.profiles
	if p.profilers == nil {
		p.profilers = make(map[protocol.ClientID]int)
		p.waits = make(map[uint64]*profileWait)
	}
	if m.Start {
		p.profilers[client]++
		for _, ws := range s.workers {
			ws.Send([]protocol.Msg{&protocol.Profile{Start: true}})
		}
		return
	}
	p.profilers[client] = max(p.profilers[client]-1, 0)
	p.lastID++
	w := &profileWait{client: st, id: m.ID, waiting: make(map[protocol.WorkerID]bool)}
	p.waits[p.lastID] = w
	for id, ws := range s.workers {
		w.waiting[id] = true
		ws.Send([]protocol.Msg{&protocol.Profile{ID: p.lastID}})
	}
	s.profileAnswered(p.lastID)
}

// profileAnswered answers the client of stop id once no worker is waited for.
func (s *Scheduler) profileAnswered(id uint64) {
	w := s.profiles.waits[id]
	if w == nil || len(w.waiting) > 0 {
		return
	}
	delete(s.profiles.waits, id)
	w.client.Send([]protocol.Msg{&protocol.ProfileReply{ID: w.id, Profiles: w.got}})
}

// profileLost stops waiting for a lost worker's profiles.
func (s *Scheduler) profileLost(worker protocol.WorkerID) {
	for id, w := range s.profiles.waits {
		if w.waiting[worker] {
			delete(w.waiting, worker)
			w.got = append(w.got, protocol.ProfileData{Worker: worker, Err: "the worker was lost"})
			s.profileAnswered(id)
		}
	}
}

// profilerLost stops the profiles a lost client started, so that no
// worker profiles forever; their data goes nowhere (ID 0).
func (s *Scheduler) profilerLost(client protocol.ClientID) {
	for range s.profiles.profilers[client] {
		for _, ws := range s.workers {
			ws.Send([]protocol.Msg{&protocol.Profile{}})
		}
	}
	delete(s.profiles.profilers, client)
}
