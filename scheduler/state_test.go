package scheduler

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/protocol"
)

// TestScenarios replays the event scripts in testdata/*.txt. Each directive
// is one event; the text below it is what the scheduler sent in answer.
//
//	worker ID [nthreads=N] [res=(GPU=1,...)]   a worker joins
//	lose ID                                    a worker is lost
//	submit [client=C] want=(k,...) [max-workers=N]
//	                                           tasks, one a line: "key = op(inputs) [res=n]"; ops
//	                                           transfer, barrier and unpack make a shuffle "s"
//	                                           whose unpack keys end in their output's number
//	finish ID KEY [nbytes=N] [ms=N] [us=N] [run=N]
//	                                           a worker reports a result of the current run by
//	                                           default, taking ms+us (default 100ms)
//	err ID KEY [retry]                         a worker reports a failure (retry: of Kind Retry);
//	                                           the message below it
//	release [client=C] keys=(k,...)            a client releases keys
//	client-lost C
//	missing ID KEY from=ID [run=N]             a worker could not fetch KEY from ID (or lost run N of its own)
//	client-missing KEY from=ID [run=N]         the client found no KEY on ID, as reported for run N
//	added ID KEY [nbytes=N]                    a worker fetched a copy of KEY
//	steal-response ID KEY [given]              a worker answers a steal request
//	retire ID                                  a worker asks to leave
//	pause ID / resume ID                       a worker's memory is too high / falls
//	metrics ID process=N managed=N [bandwidth=N]
//	                                           a worker reports its memory (and the rate of its fetches)
//	workers [id=N] [at-least=N]                what a client's WorkersQuery gets, once at
//	                                           least N workers are here
//	shared OP [client=C] [name=N] [value=V] [id=N] [target=N] [keys=(k,...)]
//	                                           a client's request to shared state; OP is the
//	                                           SharedOp's name without "Shared" (var-get, lock-acquire)
//	states                                     every task's state (not an event)
//	progress                                   the tasks by prefix, as the progress panel shows them
//	graph                                      the graph by prefix: each one's inputs' prefixes
//	priorities                                 the tasks in the order they would run
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		s := New(Config{})
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			arg := func(name, def string) string {
				if a, ok := d.Arg(name); ok && len(a.Vals) > 0 {
					return a.Vals[0]
				}
				return def
			}
			num := func(name string, def int64) int64 {
				v, err := strconv.ParseInt(arg(name, strconv.FormatInt(def, 10)), 10, 64)
				if err != nil {
					d.Fatalf(t, "%s: %v", name, err)
				}
				return v
			}
			keys := func(name string) []graph.Key {
				a, _ := d.Arg(name)
				ks := make([]graph.Key, len(a.Vals))
				for i, v := range a.Vals {
					ks[i] = graph.Key(v)
				}
				return ks
			}
			pos := func(i int) string {
				if i >= len(d.CmdArgs) {
					d.Fatalf(t, "%s: missing argument %d", d.Cmd, i+1)
				}
				return d.CmdArgs[i].Key
			}
			client := protocol.ClientID(arg("client", "c1"))
			check := func(err error) {
				if err != nil {
					d.Fatalf(t, "%v", err)
				}
			}
			switch d.Cmd {
			case "worker":
				res := graph.Resources{}
				if a, ok := d.Arg("res"); ok {
					for _, kv := range a.Vals {
						n, v, _ := strings.Cut(kv, "=")
						f, err := strconv.ParseFloat(v, 64)
						if err != nil {
							d.Fatalf(t, "res %q: %v", kv, err)
						}
						res[n] = f
					}
				}
				s.WorkerJoined(&protocol.HelloWorker{ID: protocol.WorkerID(pos(0)), NThreads: int(num("nthreads", 1)), Resources: res})
			case "lose":
				s.WorkerLost(protocol.WorkerID(pos(0)))
			case "submit":
				g, err := parseTasks(d.Input)
				if err != nil {
					d.Fatalf(t, "%v", err)
				}
				check(s.FromClient(client, &protocol.UpdateGraph{Tasks: graph.Specs(g), Keys: keys("want"), MaxWorkers: int(num("max-workers", 0))}))
			case "finish":
				k := graph.Key(pos(1))
				if !d.HasArg("ms") && !d.HasArg("us") {
					d.CmdArgs = append(d.CmdArgs, datadriven.CmdArg{Key: "ms", Vals: []string{"100"}})
				}
				check(s.FromWorker(protocol.WorkerID(pos(0)), &protocol.TaskFinished{
					Key: k, Run: uint64(num("run", int64(currentRun(s, k)))), Nbytes: num("nbytes", 8),
					Duration: time.Duration(num("ms", 0))*time.Millisecond + time.Duration(num("us", 0))*time.Microsecond}))
			case "err":
				w := protocol.WorkerID(pos(0))
				k := graph.Key(pos(1))
				msg := strings.TrimSpace(d.Input)
				if msg == "" {
					msg = "boom"
				}
				kind := protocol.Failed
				if d.HasArg("retry") {
					kind = protocol.Retry
				}
				check(s.FromWorker(w, &protocol.TaskErred{Key: k, Run: currentRun(s, k), Err: &protocol.TaskError{Kind: kind, Key: k, Worker: w, Message: msg}}))
			case "release":
				check(s.FromClient(client, &protocol.ReleaseKeys{Keys: keys("keys")}))
			case "client-lost":
				s.ClientLost(protocol.ClientID(pos(0)))
			case "missing":
				check(s.FromWorker(protocol.WorkerID(pos(0)), &protocol.MissingData{Key: graph.Key(pos(1)), From: protocol.WorkerID(arg("from", "")),
					Run: uint64(num("run", 0))}))
			case "client-missing":
				check(s.FromClient(client, &protocol.MissingData{Key: graph.Key(pos(0)), From: protocol.WorkerID(arg("from", "")),
					Run: uint64(num("run", 0))}))
			case "added":
				check(s.FromWorker(protocol.WorkerID(pos(0)), &protocol.AddKeys{Keys: []graph.Key{graph.Key(pos(1))}, Nbytes: []int64{num("nbytes", 8)}}))
			case "steal-response":
				check(s.FromWorker(protocol.WorkerID(pos(0)), &protocol.StealResponse{Key: graph.Key(pos(1)), Given: d.HasArg("given")}))
			case "retire":
				check(s.FromWorker(protocol.WorkerID(pos(0)), &protocol.Retire{}))
			case "pause", "resume":
				check(s.FromWorker(protocol.WorkerID(pos(0)), &protocol.WorkerStatus{Paused: d.Cmd == "pause", Reason: "memory"}))
			case "metrics":
				check(s.FromWorker(protocol.WorkerID(pos(0)), &protocol.WorkerMetrics{Memory: protocol.Memory{
					Limit: 1000, Process: num("process", 0), Managed: num("managed", 0)}, Bandwidth: float64(num("bandwidth", 0))}))
			case "workers":
				check(s.FromClient(client, &protocol.WorkersQuery{ID: uint64(num("id", 1)), AtLeast: int(num("at-least", 0))}))
				var b strings.Builder
				for _, e := range s.Outbox() {
					for _, w := range e.Msg.(*protocol.WorkersReply).Workers {
						fmt.Fprintf(&b, "%s processing=%d held=%d process=%d managed=%d unmanaged=%d paused=%v %s\n",
							w.ID, w.Processing, w.Held, w.Memory.Process, w.Memory.Managed, w.Memory.Unmanaged(), w.Paused, w.Reason)
					}
				}
				return b.String()
			case "shared":
				op, ok := sharedOpNames[pos(0)]
				if !ok {
					d.Fatalf(t, "unknown shared operation %q", pos(0))
				}
				var value []byte
				if v := arg("value", ""); v != "" {
					value = []byte(v)
				}
				check(s.FromClient(client, &protocol.Shared{ID: uint64(num("id", 0)), Op: op, Name: arg("name", ""),
					Value: value, Keys: keys("keys"), Target: uint64(num("target", 0))}))
			case "states":
				return dumpStates(s)
			case "graph":
				var b strings.Builder
				for _, g := range s.Groups() {
					fmt.Fprintf(&b, "%s (%d tasks) <- %v\n", g.Prefix, g.Total(), g.Inputs)
				}
				return b.String()
			case "progress":
				var b strings.Builder
				for _, p := range s.Progress() {
					fmt.Fprintf(&b, "%s: waiting=%d processing=%d memory=%d done=%d erred=%d of %d\n",
						p.Prefix, p.Waiting, p.Processing, p.Memory, p.Done, p.Erred, p.Total())
				}
				return b.String()
			case "priorities":
				return dumpPriorities(s)
			default:
				d.Fatalf(t, "unknown directive %q", d.Cmd)
			}
			if err := s.Validate(); err != nil {
				d.Fatalf(t, "invariants broken after %s: %v", d.Cmd, err)
			}
			return formatOutbox(s.Outbox())
		})
	})
}

func parseTasks(s string) ([]*graph.Task, error) {
	var ts []*graph.Task
	for n, line := range strings.Split(strings.TrimSpace(s), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, rest, ok := strings.Cut(line, " = ")
		open, close := strings.IndexByte(rest, '('), strings.IndexByte(rest, ')')
		if !ok || open < 0 || close < open {
			return nil, fmt.Errorf("line %d: want \"key = op(inputs)\", got %q", n+1, line)
		}
		t := &graph.Task{Key: graph.Key(key), Op: rest[:open]}
		for _, in := range strings.Split(rest[open+1:close], ",") {
			if in = strings.TrimSpace(in); in != "" {
				t.Inputs = append(t.Inputs, graph.Key(in))
			}
		}
		if res := strings.Trim(strings.TrimSpace(rest[close+1:]), "[]"); res != "" {
			t.Resources = graph.Resources{}
			for _, kv := range strings.Split(res, ",") {
				name, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return nil, fmt.Errorf("line %d: %w", n+1, err)
				}
				t.Resources[name] = f
			}
		}
		ts = append(ts, t)
	}
	markShuffle(ts)
	return ts, nil
}

// markShuffle makes the tasks whose ops are transfer, barrier and unpack
// the tasks of shuffle "s": transfers numbered in order, unpacks by the
// number their key ends with.
func markShuffle(ts []*graph.Task) {
	outputs, sources := 0, 0
	for _, t := range ts {
		switch t.Op {
		case "unpack":
			outputs++
		case "transfer":
			sources++
		}
	}
	src := 0
	for _, t := range ts {
		sh := &graph.Shuffle{ID: "s", Outputs: outputs, Sources: []int{sources}}
		switch t.Op {
		case "transfer":
			sh.Role, sh.Source = graph.Transfer, src
			src++
		case "barrier":
			sh.Role = graph.Barrier
		case "unpack":
			sh.Role = graph.Unpack
			k := string(t.Key)
			sh.Part, _ = strconv.Atoi(k[strings.LastIndexByte(k, '-')+1:])
		default:
			continue
		}
		t.Shuffle = sh
	}
}

func formatOutbox(out []Envelope) string {
	var b strings.Builder
	for _, e := range out {
		to := string(e.Worker)
		if e.Client != "" {
			to = string(e.Client)
		}
		fmt.Fprintf(&b, "%s <- %s\n", to, formatMsg(e.Msg))
	}
	return b.String()
}

var sharedOpNames = map[string]protocol.SharedOp{
	"var-set": protocol.SharedVarSet, "var-get": protocol.SharedVarGet, "var-delete": protocol.SharedVarDelete,
	"queue-put": protocol.SharedQueuePut, "queue-get": protocol.SharedQueueGet, "queue-len": protocol.SharedQueueLen,
	"lock-acquire": protocol.SharedLockAcquire, "lock-release": protocol.SharedLockRelease,
	"event-set": protocol.SharedEventSet, "event-clear": protocol.SharedEventClear,
	"event-wait": protocol.SharedEventWait, "event-is-set": protocol.SharedEventIsSet,
	"publish": protocol.SharedPublish, "dataset": protocol.SharedDataset, "unpublish": protocol.SharedUnpublish,
	"datasets": protocol.SharedDatasets, "forget": protocol.SharedForget, "cancel": protocol.SharedCancel,
}

func formatMsg(m protocol.Msg) string {
	switch m := m.(type) {
	case *protocol.SharedReply:
		s := fmt.Sprintf("shared-reply %d", m.ID)
		if m.Found {
			s += " found"
		}
		if m.Value != nil {
			s += fmt.Sprintf(" value=%s", m.Value)
		}
		if m.Keys != nil {
			s += fmt.Sprintf(" keys=%v", m.Keys)
		}
		if m.N != 0 {
			s += fmt.Sprintf(" n=%d", m.N)
		}
		if m.Err != "" {
			s += " err=" + m.Err
		}
		return s
	case *protocol.ComputeTask:
		s := "compute " + string(m.Spec.Key())
		for _, d := range m.Deps {
			s += fmt.Sprintf(" %s@%v", d.Key, d.WhoHas)
		}
		if r := m.Shuffle; r != nil {
			s += fmt.Sprintf(" run=%d%v", r.Run, slots(r))
			if r.Since > 0 {
				s += fmt.Sprintf(" since=%d", r.Since)
			}
		}
		return s
	case *protocol.DropShuffle:
		return fmt.Sprintf("drop-shuffle %s run=%d", m.ID, m.Run)
	case *protocol.FreeKeys:
		return fmt.Sprintf("free %v", m.Keys)
	case *protocol.KeyInMemory:
		return fmt.Sprintf("in-memory %s %v", m.Key, m.WhoHas)
	case *protocol.KeyErred:
		return fmt.Sprintf("erred %s: %v", m.Key, m.Err)
	case *protocol.StealRequest:
		return fmt.Sprintf("steal %s", m.Key)
	case *protocol.Replicate:
		return fmt.Sprintf("replicate %v from %s", m.Keys, m.From)
	case *protocol.Retired:
		return "retired"
	case *protocol.WorkersReply:
		ids := make([]protocol.WorkerID, len(m.Workers))
		for i, w := range m.Workers {
			ids[i] = w.ID
		}
		return fmt.Sprintf("workers %d %v", m.ID, ids)
	}
	return fmt.Sprintf("%T", m)
}

func dumpStates(s *State) string {
	ts := make([]*task, 0, s.tasks.len())
	for t := range s.tasks.all() {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].key() < ts[j].key() })
	var b strings.Builder
	for _, t := range ts {
		fmt.Fprintf(&b, "%s %s", t.key(), t.state)
		if len(t.whoHas) > 0 {
			ids := make([]string, len(t.whoHas))
			for i, w := range t.whoHas {
				ids[i] = string(w.id)
			}
			fmt.Fprintf(&b, " on=%s", strings.Join(ids, ","))
		}
		if t.processingOn != nil {
			fmt.Fprintf(&b, " running=%s", t.processingOn.id)
		}
		if w := t.ex().wantedBy; len(w) > 0 {
			fmt.Fprintf(&b, " wanted=%v", w)
		}
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return "(no tasks)\n"
	}
	return b.String()
}

func dumpPriorities(s *State) string {
	ts := make([]*task, 0, s.tasks.len())
	for t := range s.tasks.all() {
		ts = append(ts, t)
	}
	sortByPriority(ts)
	var b strings.Builder
	for _, t := range ts {
		fmt.Fprintf(&b, "%d.%d %s\n", t.prio.Gen, t.prio.Ord, t.key())
	}
	return b.String()
}

// currentRun is the run number of key's latest assignment, or 0.
func currentRun(s *State, k graph.Key) uint64 {
	if t := s.tasks.get(k); t != nil {
		return t.run
	}
	return 0
}

// slots writes a shuffle run's workers, an empty slot as "-", each with the
// run its outputs were given out in where that is an earlier one.
func slots(r *protocol.ShuffleRun) []string {
	out := make([]string, len(r.Workers))
	for i, w := range r.Workers {
		out[i] = string(w)
		if w == "" {
			out[i] = "-"
		}
		if g := r.Gens[i]; g != r.Run {
			out[i] += fmt.Sprintf("@%d", g)
		}
	}
	return out
}
