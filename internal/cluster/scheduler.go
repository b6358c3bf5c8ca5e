package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/scheduler"
)

// Scheduler drives a scheduler core: it serves the streams of workers and
// clients and sends what the core decides.
type Scheduler struct {
	ln     transport.Listener
	log    *slog.Logger
	events chan schedEvent
	done   chan struct{}
	closed sync.Once
	wg     sync.WaitGroup

	// Owned by the loop.
	state   *scheduler.State
	workers map[protocol.WorkerID]transport.Stream
	clients map[protocol.ClientID]transport.Stream
}

type schedEvent struct {
	worker protocol.WorkerID
	client protocol.ClientID
	hello  protocol.Msg // a peer joins on this stream
	stream transport.Stream
	msgs   []protocol.Msg
	lost   bool
}

// StartScheduler serves a scheduler at addr on net.
func StartScheduler(net transport.Network, addr string, cfg scheduler.Config, log *slog.Logger) (*Scheduler, error) {
	s := &Scheduler{
		log:     log,
		events:  make(chan schedEvent, 1024),
		done:    make(chan struct{}),
		state:   scheduler.New(cfg),
		workers: make(map[protocol.WorkerID]transport.Stream),
		clients: make(map[protocol.ClientID]transport.Stream),
	}
	ln, err := net.Listen(addr, s)
	if err != nil {
		return nil, fmt.Errorf("start scheduler: %w", err)
	}
	s.ln = ln
	s.wg.Add(1)
	go s.loop()
	log.Info("scheduler started", "addr", ln.Addr())
	return s, nil
}

// Addr is the address workers and clients dial.
func (s *Scheduler) Addr() string { return s.ln.Addr() }

// Close stops serving and closes every stream.
func (s *Scheduler) Close() error {
	s.closed.Do(func() {
		s.ln.Close()
		close(s.done)
		s.wg.Wait()
		for _, st := range s.workers {
			st.Close()
		}
		for _, st := range s.clients {
			st.Close()
		}
	})
	return nil
}

// ServeStream serves a worker's or a client's stream: a hello, then messages.
func (s *Scheduler) ServeStream(st transport.Stream) {
	msgs, err := st.Recv()
	if err != nil || len(msgs) == 0 {
		st.Close()
		return
	}
	ev := schedEvent{hello: msgs[0], stream: st}
	var version string
	switch h := msgs[0].(type) {
	case *protocol.HelloWorker:
		ev.worker, version = h.ID, h.Version
	case *protocol.HelloClient:
		ev.client, version = h.ID, h.Version
	default:
		s.log.Warn("stream opened without a hello", "first", fmt.Sprintf("%T", msgs[0]))
		st.Close()
		return
	}
	if version != protocol.Version {
		st.Send([]protocol.Msg{&protocol.Welcome{Version: protocol.Version,
			Err: versionMismatch(version)}})
		st.Close()
		return
	}
	if err := st.Send([]protocol.Msg{&protocol.Welcome{Version: protocol.Version}}); err != nil {
		st.Close()
		return
	}
	if !s.post(ev) {
		st.Close()
		return
	}
	msgs = msgs[1:]
	for {
		if len(msgs) > 0 && !s.post(schedEvent{worker: ev.worker, client: ev.client, msgs: msgs}) {
			return
		}
		if msgs, err = st.Recv(); err != nil {
			s.post(schedEvent{worker: ev.worker, client: ev.client, stream: st, lost: true})
			return
		}
	}
}

func versionMismatch(peer string) string {
	return fmt.Sprintf("version mismatch: the peer speaks protocol %s, the scheduler speaks %s; run the same Dusk release everywhere",
		peer, protocol.Version)
}

func (s *Scheduler) post(ev schedEvent) bool {
	select {
	case s.events <- ev:
		return true
	case <-s.done:
		return false
	}
}

// GetData is not served by the scheduler: it never holds or relays data.
func (s *Scheduler) GetData(context.Context, []graph.Key) (map[graph.Key]any, error) {
	return nil, errors.New("the scheduler holds no data: ask a worker")
}

func (s *Scheduler) loop() {
	defer s.wg.Done()
	for {
		select {
		case ev := <-s.events:
			s.apply(ev)
		case <-s.done:
			return
		}
	drain:
		for i := 0; i < 4096; i++ {
			select {
			case ev := <-s.events:
				s.apply(ev)
			default:
				break drain
			}
		}
		s.flush()
	}
}

func (s *Scheduler) apply(ev schedEvent) {
	switch {
	case ev.hello != nil && ev.worker != "":
		if old := s.workers[ev.worker]; old != nil {
			s.state.WorkerLost(ev.worker) // a restarted worker under the same address
			old.Close()
		}
		s.workers[ev.worker] = ev.stream
		s.state.WorkerJoined(ev.hello.(*protocol.HelloWorker))
		s.log.Info("worker joined", "worker", ev.worker)
	case ev.hello != nil:
		s.clients[ev.client] = ev.stream
		s.state.ClientJoined(ev.client)
	case ev.lost && ev.worker != "":
		if s.workers[ev.worker] == ev.stream {
			s.dropWorker(ev.worker)
		}
	case ev.lost:
		if s.clients[ev.client] == ev.stream {
			delete(s.clients, ev.client)
			s.state.ClientLost(ev.client)
		}
	case ev.worker != "":
		for _, m := range ev.msgs {
			s.state.FromWorker(ev.worker, m)
		}
	default:
		for _, m := range ev.msgs {
			s.state.FromClient(ev.client, m)
		}
	}
}

func (s *Scheduler) dropWorker(id protocol.WorkerID) {
	if st := s.workers[id]; st != nil {
		st.Close()
	}
	delete(s.workers, id)
	s.state.WorkerLost(id)
	s.log.Warn("worker lost", "worker", id)
}

// flush sends the core's messages, one batch per peer, in order. A peer
// that can't be reached is dropped, which may produce more messages.
func (s *Scheduler) flush() {
	for {
		out := s.state.Outbox()
		if len(out) == 0 {
			return
		}
		toWorker := make(map[protocol.WorkerID][]protocol.Msg)
		toClient := make(map[protocol.ClientID][]protocol.Msg)
		for _, e := range out {
			if e.Worker != "" {
				toWorker[e.Worker] = append(toWorker[e.Worker], e.Msg)
			} else {
				toClient[e.Client] = append(toClient[e.Client], e.Msg)
			}
		}
		for id, msgs := range toWorker {
			if st := s.workers[id]; st != nil && st.Send(msgs) != nil {
				s.dropWorker(id)
			}
		}
		for id, msgs := range toClient {
			if st := s.clients[id]; st != nil && st.Send(msgs) != nil {
				delete(s.clients, id)
				s.state.ClientLost(id)
			}
		}
	}
}
