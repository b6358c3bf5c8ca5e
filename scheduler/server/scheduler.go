package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	gonet "net"
	"strings"
	"sync"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/dashboard"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/registry"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/scheduler"
)

// Scheduler drives a scheduler core: each peer's stream is read by its own
// goroutine, which feeds the core under a lock and sends what it decides.
// Sends never block (transport.Stream's promise), so the lock is held only
// for the core's own work.
type Scheduler struct {
	ln     transport.Listener
	log    *slog.Logger
	gossip Gossip

	mu      sync.Mutex
	closed  bool
	done    chan struct{} // closed by Close
	state   *scheduler.State
	workers map[protocol.WorkerID]transport.Stream
	clients map[protocol.ClientID]transport.Stream
	stream  taskStream
	events  dashboard.Events
	// dashboard is where the dashboard is served, told to peers in Welcome;
	// logs keep the lines workers send on, for its Logs page.
	dashboard string
	logs      *dashboard.Logs
	// seen is when each worker was last heard from.
	seen map[protocol.WorkerID]time.Time
	profiles
	adaptive adaptive
}

// Gossip is what the scheduler tells its workers of its membership cluster,
// which declares lost workers: where to join it (none if Addr is empty),
// and the key that encrypts it, handed only over connections whose TLS
// authenticated the worker.
type Gossip struct {
	Addr string
	Key  []byte
}

// StartScheduler serves a scheduler at addr on net.
func StartScheduler(net transport.Network, addr string, gossip Gossip, cfg scheduler.Config, log *slog.Logger) (*Scheduler, error) {
	s := &Scheduler{
		log:     log,
		gossip:  gossip,
		state:   scheduler.New(cfg),
		workers: make(map[protocol.WorkerID]transport.Stream),
		clients: make(map[protocol.ClientID]transport.Stream),
		seen:    make(map[protocol.WorkerID]time.Time),
		done:    make(chan struct{}),
	}
	ln, err := net.Listen(addr, s)
	if err != nil {
		return nil, fmt.Errorf("start scheduler: %w", err)
	}
	s.ln = ln
	log.Info("scheduler started", "addr", ln.Addr())
	go s.tick()
	return s, nil
}

// tick tells the core the time every second, until the scheduler closes:
// tasks that wait for a worker of the binary they need fail past their
// timeout.
func (s *Scheduler) tick() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case now := <-t.C:
			s.handle(func() { s.state.Tick(now) })
		}
	}
}

// Addr is the address workers and clients dial.
func (s *Scheduler) Addr() string { return s.ln.Addr() }

// Close stops serving and closes every stream.
func (s *Scheduler) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	streams := make([]transport.Stream, 0, len(s.workers)+len(s.clients))
	for _, st := range s.workers {
		streams = append(streams, st)
	}
	for _, st := range s.clients {
		streams = append(streams, st)
	}
	s.mu.Unlock()
	s.ln.Close()
	for _, st := range streams {
		st.Close()
	}
	return nil
}

// ServeStream serves a worker's or a client's stream: a hello, then messages.
func (s *Scheduler) ServeStream(st transport.Stream) {
	msgs, err := st.Recv()
	if err != nil || len(msgs) == 0 {
		st.Close()
		return
	}
	var worker protocol.WorkerID
	var client protocol.ClientID
	var version string
	switch h := msgs[0].(type) {
	case *protocol.HelloWorker:
		worker, version = h.ID, h.Version
	case *protocol.HelloClient:
		client, version = h.ID, h.Version
	default:
		s.log.Warn("stream opened without a hello", "first", fmt.Sprintf("%T", msgs[0]))
		st.Close()
		return
	}
	refusal := ""
	if version != protocol.Version {
		refusal = versionMismatch(version)
	} else if a, ok := st.(transport.Addressed); ok && worker != "" {
		refusal = loopbackFromAfar(worker, a.RemoteAddr())
	}
	if refusal != "" {
		s.log.Warn("refused a peer", "worker", worker, "client", client, "why", refusal)
		st.Send([]protocol.Msg{&protocol.Welcome{Version: protocol.Version, Err: refusal}})
		st.Close()
		return
	}
	s.mu.Lock()
	welcome := &protocol.Welcome{Version: protocol.Version, Gossip: s.gossip.Addr, GossipKey: s.gossip.Key, Dashboard: s.dashboard}
	s.mu.Unlock()
	if err := st.Send([]protocol.Msg{welcome}); err != nil {
		st.Close()
		return
	}
	if !s.join(msgs[0], st) {
		st.Close()
		return
	}
	for msgs = msgs[1:]; ; {
		if len(msgs) > 0 {
			s.handle(func() {
				// A stream replaced by a newer one (a restarted worker)
				// may still deliver what it read: ignore that.
				if worker != "" && s.workers[worker] != st || client != "" && s.clients[client] != st {
					return
				}
				if worker != "" {
					transport.LogMsgs(s.log, "from worker", string(worker), msgs)
				}
				for _, m := range msgs {
					var err error
					if _, ok := m.(*protocol.Retire); ok {
						s.log.Info("worker retiring: copying what only it holds", "worker", worker)
					}
					if s.driverMsg(worker, client, st, m) {
						continue
					}
					if worker != "" {
						s.seen[worker] = time.Now()
						switch m := m.(type) {
						case *protocol.TaskFinished:
							s.stream.record(worker, m)
						case *protocol.WorkerStatus:
							if m.Paused {
								s.events.Pauses++
							}
						case *protocol.WorkerMetrics:
							s.observe(worker, m)
						}
						err = s.state.FromWorker(worker, m)
					} else {
						err = s.state.FromClient(client, m)
					}
					if err != nil {
						s.log.Warn("dropped a message", "err", err)
					}
				}
			})
		}
		if msgs, err = st.Recv(); err != nil {
			s.handle(func() {
				switch {
				case worker != "" && s.workers[worker] == st:
					s.dropWorker(worker)
				case client != "" && s.clients[client] == st:
					s.log.Info("client gone", "client", client)
					delete(s.clients, client)
					s.state.ClientLost(client)
					s.profilerLost(client)
				}
			})
			st.Close()
			return
		}
	}
}

// loopbackFromAfar is why a worker that advertises a loopback address but
// connects from another machine is refused: its peers could not reach it,
// and what it computed would be lost to them. Empty when it is not so.
func loopbackFromAfar(id protocol.WorkerID, remote string) string {
	host, _, err := gonet.SplitHostPort(string(id))
	rhost, _, rerr := gonet.SplitHostPort(remote)
	if err != nil || rerr != nil {
		return ""
	}
	if transport.Loopback(host) && gonet.ParseIP(rhost) != nil && !transport.Loopback(rhost) {
		return fmt.Sprintf("the worker advertises %s, a loopback address, but connects from %s: workers on other machines "+
			"could not reach it; give the worker --host or --contact-address", id, rhost)
	}
	return ""
}

func versionMismatch(peer string) string {
	return fmt.Sprintf("version mismatch: the peer speaks protocol %s, the scheduler speaks %s; run the same Dusk release everywhere",
		peer, protocol.Version)
}

// join registers a peer; false once the scheduler is closed.
func (s *Scheduler) join(hello protocol.Msg, st transport.Stream) bool {
	ok := true
	s.handle(func() {
		if s.closed {
			ok = false
			return
		}
		switch h := hello.(type) {
		case *protocol.HelloWorker:
			if old := s.workers[h.ID]; old != nil {
				s.dropWorker(h.ID) // a restarted worker under the same address
				old.Close()
			}
			s.workers[h.ID] = st
			s.seen[h.ID] = time.Now()
			s.state.WorkerJoined(h)
			s.events.Joined++
			if h.Restarted != "" {
				s.events.Restarted++
				if h.Restarted == protocol.RestartKilled {
					s.events.Killed++
				}
			}
			s.log.Info("worker joined", "worker", h.ID, "threads", h.NThreads)
		case *protocol.HelloClient:
			s.clients[h.ID] = st
			s.state.ClientJoined(h.ID)
			s.log.Info("client connected", "client", h.ID)
		}
	})
	return ok
}

// handle runs f on the core under the lock and sends what it decided.
func (s *Scheduler) handle(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
	s.flush()
}

// GetData is not served by the scheduler: it never holds or relays data.
func (s *Scheduler) GetData(context.Context, []graph.Key) (map[graph.Key]any, error) {
	return nil, errors.New("the scheduler holds no data: ask a worker")
}

// Push is not served by the scheduler: shuffle pieces go to workers.
func (s *Scheduler) Push(_ context.Context, p *protocol.ShufflePush) error {
	for _, v := range p.Values {
		registry.Release(v)
	}
	return errors.New("the scheduler holds no data: push to a worker")
}

// DropWorker declares a worker lost, as when the membership cluster finds
// it dead: its stream is closed and its work recovered. It reports whether
// the worker was still there (not gone already, retired or dropped).
func (s *Scheduler) DropWorker(id protocol.WorkerID) (was bool) {
	s.handle(func() {
		if s.workers[id] != nil {
			was = true
			s.dropWorker(id)
		}
	})
	return was
}

func (s *Scheduler) dropWorker(id protocol.WorkerID) {
	if st := s.workers[id]; st != nil {
		st.Close()
	}
	delete(s.workers, id)
	delete(s.seen, id)
	s.profileLost(id)
	retired := s.state.Retiring(id)
	loss := s.state.WorkerLost(id)
	s.events.Lost++
	if retired && len(loss.Running)+len(loss.Lost)+len(loss.Shuffles) == 0 {
		s.log.Info("worker retired", "worker", id) // a normal end: nothing to recover
	} else {
		s.log.Warn("worker lost", "worker", id, "running", len(loss.Running), "results_lost", len(loss.Lost),
			"rerun", keySample(append(loss.Running, loss.Lost...)))
	}
	for _, sh := range loss.Shuffles {
		s.log.Warn("shuffle outputs assembled anew", "shuffle", sh.ID, "worker", id, "moved", sh.Moved, "outputs", sh.Outputs)
	}
	// Its peers end their transfers with it now: a fetch from a worker cut
	// off would otherwise wait for TCP to give up.
	for other, st := range s.workers {
		if st.Send([]protocol.Msg{&protocol.PeerLost{Worker: id}}) != nil {
			s.log.Warn("could not tell a worker of a lost peer", "worker", other, "peer", id)
		}
	}
}

// keySample names a few of keys, for a log line: the first five, and how
// many more.
func keySample(keys []graph.Key) string {
	const shown = 5
	var b strings.Builder
	for i, k := range keys[:min(len(keys), shown)] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(k))
	}
	if len(keys) > shown {
		fmt.Fprintf(&b, " and %d more", len(keys)-shown)
	}
	return b.String()
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
			transport.LogMsgs(s.log, "to worker", string(id), msgs)
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
