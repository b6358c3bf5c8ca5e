package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
	"github.com/duskdata/dusk/internal/transport"
	"github.com/duskdata/dusk/worker"
)

// WorkerConfig describes a worker to start.
type WorkerConfig struct {
	// NThreads is how many tasks run at once. Default 1.
	NThreads int
	// Resources the worker offers beyond its threads, e.g. GPU=1.
	Resources graph.Resources
}

// Worker drives a worker core: it runs tasks on NThreads goroutines, fetches
// inputs from peers, serves its results to them, and talks to the scheduler.
type Worker struct {
	id     protocol.WorkerID
	net    transport.Network
	ln     transport.Listener
	sched  transport.Stream
	store  *worker.Store
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	events chan workerEvent
	exec   chan *graph.Task
	wg     sync.WaitGroup // the loop and the scheduler reader, not running tasks
	once   sync.Once
	done   chan struct{}

	connMu sync.Mutex
	conns  map[protocol.WorkerID]transport.Conn

	state *worker.State // owned by the loop
}

type workerEvent struct {
	msgs []protocol.Msg // from the scheduler

	executed    graph.Key
	nbytes      int64
	took        time.Duration
	err         *protocol.TaskError
	gathered    protocol.WorkerID
	got         map[graph.Key]int64
	unreachable bool
	schedLost   bool
}

// StartWorker starts a worker on net and joins the scheduler at schedAddr.
func StartWorker(ctx context.Context, net transport.Network, schedAddr string, cfg WorkerConfig, log *slog.Logger) (*Worker, error) {
	if cfg.NThreads <= 0 {
		cfg.NThreads = 1
	}
	wctx, cancel := context.WithCancel(context.Background())
	w := &Worker{
		net: net, store: worker.NewStore(), ctx: wctx, cancel: cancel,
		events: make(chan workerEvent, 1024),
		exec:   make(chan *graph.Task, 1024),
		conns:  make(map[protocol.WorkerID]transport.Conn),
		done:   make(chan struct{}),
	}
	ln, err := net.Listen("", w)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("start worker: %w", err)
	}
	w.ln = ln
	w.id = protocol.WorkerID(ln.Addr())
	w.log = log.With("worker", w.id)
	res := graph.Resources{}
	for n, v := range cfg.Resources {
		res[n] = v
	}
	hello := &protocol.HelloWorker{Version: protocol.Version, ID: w.id, NThreads: cfg.NThreads, Resources: res}
	w.sched, err = Connect(ctx, net, schedAddr, hello)
	if err != nil {
		ln.Close()
		cancel()
		return nil, fmt.Errorf("start worker: %w", err)
	}
	w.state = worker.New(worker.Config{ID: w.id, NThreads: cfg.NThreads, Resources: cfg.Resources})
	for i := 0; i < cfg.NThreads; i++ {
		go w.runTasks()
	}
	w.wg.Add(2)
	go w.readScheduler()
	go w.loop()
	return w, nil
}

// Connect opens a stream to the scheduler at addr, sends hello and checks
// the scheduler's welcome, which refuses a peer of another version.
func Connect(ctx context.Context, net transport.Network, addr string, hello protocol.Msg) (transport.Stream, error) {
	conn, err := net.Dial(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("connect to scheduler %s: %w", addr, err)
	}
	st, err := conn.OpenStream(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to scheduler %s: %w", addr, err)
	}
	if err := st.Send([]protocol.Msg{hello}); err != nil {
		st.Close()
		return nil, fmt.Errorf("connect to scheduler %s: %w", addr, err)
	}
	msgs, err := st.Recv()
	if err != nil || len(msgs) == 0 {
		st.Close()
		return nil, fmt.Errorf("connect to scheduler %s: no answer to hello: %v", addr, err)
	}
	w, ok := msgs[0].(*protocol.Welcome)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("connect to scheduler %s: unexpected answer %T", addr, msgs[0])
	}
	if w.Err != "" {
		st.Close()
		return nil, fmt.Errorf("connect to scheduler %s: %s", addr, w.Err)
	}
	return st, nil
}

// ID is the worker's address.
func (w *Worker) ID() protocol.WorkerID { return w.id }

// Store is the worker's result store.
func (w *Worker) Store() *worker.Store { return w.store }

// Close leaves the cluster: the scheduler sees the worker as lost. Tasks
// still running finish in the background and their results are dropped.
func (w *Worker) Close() error {
	w.once.Do(func() {
		w.sched.Close()
		w.ln.Close()
		w.cancel()
		close(w.done)
	})
	w.wg.Wait()
	return nil
}

func (w *Worker) readScheduler() {
	defer w.wg.Done()
	for {
		msgs, err := w.sched.Recv()
		if err != nil {
			w.post(workerEvent{schedLost: true})
			return
		}
		if !w.post(workerEvent{msgs: msgs}) {
			return
		}
	}
}

func (w *Worker) post(ev workerEvent) bool {
	select {
	case w.events <- ev:
		return true
	case <-w.done:
		return false
	}
}

func (w *Worker) loop() {
	defer w.wg.Done()
	defer close(w.exec)
	for {
		select {
		case ev := <-w.events:
			if ev.schedLost {
				w.log.Info("disconnected from the scheduler")
				go w.Close()
				return
			}
			w.apply(ev)
		case <-w.done:
			return
		}
	drain:
		for i := 0; i < 4096; i++ {
			select {
			case ev := <-w.events:
				if ev.schedLost {
					go w.Close()
					return
				}
				w.apply(ev)
			default:
				break drain
			}
		}
		w.carryOut()
	}
}

func (w *Worker) apply(ev workerEvent) {
	switch {
	case ev.msgs != nil:
		for _, m := range ev.msgs {
			switch m := m.(type) {
			case *protocol.ComputeTask:
				w.state.ComputeTask(m)
			case *protocol.FreeKeys:
				w.state.FreeKeys(m)
			default:
				w.log.Warn("unexpected message from the scheduler", "type", fmt.Sprintf("%T", m))
			}
		}
	case ev.executed != "" && ev.err != nil:
		w.state.ExecuteFailed(ev.executed, ev.err)
	case ev.executed != "":
		w.state.ExecuteDone(ev.executed, ev.nbytes, ev.took)
	case ev.gathered != "":
		w.state.GatherDone(ev.gathered, ev.got, ev.unreachable)
	}
}

// carryOut does what the core asked for since the last call.
func (w *Worker) carryOut() {
	var toScheduler []protocol.Msg
	for _, in := range w.state.Outbox() {
		switch in := in.(type) {
		case worker.Execute:
			w.exec <- in.Task
		case worker.Gather:
			go w.gather(in.From, in.Keys)
		case worker.Drop:
			for _, k := range in.Keys {
				w.store.Delete(k)
			}
		case worker.Send:
			toScheduler = append(toScheduler, in.Msg)
		}
	}
	if len(toScheduler) > 0 {
		if err := w.sched.Send(toScheduler); err != nil {
			go w.Close()
		}
	}
}

// runTasks is one of the worker's threads.
func (w *Worker) runTasks() {
	for t := range w.exec {
		ev := workerEvent{executed: t.Key}
		inputs := make([]any, len(t.Inputs))
		var missing error
		for i, k := range t.Inputs {
			v, ok := w.store.Get(k)
			if !ok {
				missing = fmt.Errorf("input %s is not in this worker's store", k)
				break
			}
			inputs[i] = v
		}
		start := time.Now()
		var result any
		err := missing
		if err == nil {
			result, err = worker.Run(w.ctx, t, inputs)
		}
		ev.took = time.Since(start)
		for _, v := range inputs {
			worker.Release(v)
		}
		if err != nil {
			ev.err = &protocol.TaskError{Kind: protocol.Failed, Key: t.Key, Worker: w.id, Message: err.Error()}
			var pe *worker.PanicError
			if errors.As(err, &pe) {
				ev.err.Stack = pe.Stack
			}
		} else {
			ev.nbytes = w.store.Put(t.Key, result)
		}
		if !w.post(ev) {
			continue // closing: drain the queue without running more
		}
	}
}

// gather fetches keys from a peer into the store.
func (w *Worker) gather(from protocol.WorkerID, keys []graph.Key) {
	ev := workerEvent{gathered: from, got: make(map[graph.Key]int64, len(keys))}
	values, err := w.getData(from, keys)
	if err != nil {
		w.log.Warn("fetch failed", "from", from, "keys", len(keys), "err", err)
		ev.unreachable = true
	}
	for k, v := range values {
		ev.got[k] = w.store.Put(k, v)
	}
	w.post(ev)
}

func (w *Worker) getData(from protocol.WorkerID, keys []graph.Key) (map[graph.Key]any, error) {
	w.connMu.Lock()
	conn := w.conns[from]
	w.connMu.Unlock()
	if conn == nil {
		c, err := w.net.Dial(w.ctx, string(from))
		if err != nil {
			return nil, err
		}
		w.connMu.Lock()
		if conn = w.conns[from]; conn == nil {
			conn = c
			w.conns[from] = c
		} else {
			c.Close()
		}
		w.connMu.Unlock()
	}
	return conn.GetData(w.ctx, keys)
}

// ServeStream refuses streams: only the scheduler gets one, from the worker.
func (w *Worker) ServeStream(st transport.Stream) { st.Close() }

// GetData serves results to peers and clients; each value carries a
// reference for the caller.
func (w *Worker) GetData(_ context.Context, keys []graph.Key) (map[graph.Key]any, error) {
	out := make(map[graph.Key]any, len(keys))
	for _, k := range keys {
		if v, ok := w.store.Get(k); ok {
			out[k] = v
		}
	}
	return out, nil
}
