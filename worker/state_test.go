package worker

import (
	"errors"
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

// TestScenarios replays the event scripts in testdata/*.txt against a worker
// core; the text below each directive is the instructions it produced.
//
//	worker [nthreads=N] [res=(GPU=1)] [transfers=N] [batch=N] [limit=N]   start a fresh worker "me"
//	compute KEY [prio=N] [deps=(key@peer+peer:nbytes,...)] [res=(GPU=1)]
//	done KEY [nbytes=N] [grew=N] the driver finished running KEY
//	failed KEY                   KEY's operation failed
//	free keys=(...)              the scheduler frees keys
//	gathered PEER [got=(key:nbytes,...)] [unreachable]
//	steal KEY                    the scheduler asks for KEY back
//	replicate keys=(...) from=PEER   the scheduler asks for copies
//	memory process=N managed=N [out=N] [spill-error]   a memory reading
//	lost keys=(...)              the store could not read back keys
//	compute KEY unpack=ID part=N sources=(N,...) [run=N]   an unpack of run N (default 1)
//	compute KEY transfer=ID [run=N]   a transfer of run N
//	push ID [run=N] [side=N] source=N parts=(part:nbytes,...) [rows=N] [merge=OP]   pieces arrive (nbytes 0: no rows; rows: each piece's, uncounted if absent)
//	merged KEY [nbytes=N] [rows=N] [failed]   the driver ran the merge that makes KEY
//	drop-shuffle ID run=N        the scheduler drops runs up to N
//	states
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var s *State
		merges := map[graph.Key]*MergeJob{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			vals := func(name string) []string {
				a, _ := d.Arg(name)
				return a.Vals
			}
			num := func(name string, def int64) int64 {
				if v := vals(name); len(v) > 0 {
					n, err := strconv.ParseInt(v[0], 10, 64)
					if err != nil {
						d.Fatalf(t, "%s: %v", name, err)
					}
					return n
				}
				return def
			}
			res := func() graph.Resources {
				var r graph.Resources
				for _, kv := range vals("res") {
					n, v, _ := strings.Cut(kv, "=")
					f, _ := strconv.ParseFloat(v, 64)
					if r == nil {
						r = graph.Resources{}
					}
					r[n] = f
				}
				return r
			}
			first := func() string {
				if len(d.CmdArgs) == 0 {
					d.Fatalf(t, "%s needs an argument", d.Cmd)
				}
				return d.CmdArgs[0].Key
			}
			switch d.Cmd {
			case "worker":
				s = New(Config{ID: "me", NThreads: int(num("nthreads", 1)), Resources: res(),
					Transfers: int(num("transfers", 0)), TransferBatch: num("batch", 0), MemoryLimit: num("limit", 0)})
				return ""
			case "compute":
				m := &protocol.ComputeTask{Priority: protocol.Priority{Ord: num("prio", 0)}}
				task := &graph.Task{Key: graph.Key(first()), Op: "op", Resources: res()}
				for _, dep := range vals("deps") {
					key, rest, _ := strings.Cut(dep, "@")
					holders, size, _ := strings.Cut(rest, ":")
					n, _ := strconv.ParseInt(size, 10, 64)
					var who []protocol.WorkerID
					for _, h := range strings.Split(holders, "+") {
						if h != "" {
							who = append(who, protocol.WorkerID(h))
						}
					}
					task.Inputs = append(task.Inputs, graph.Key(key))
					m.Deps = append(m.Deps, protocol.Dep{Key: graph.Key(key), WhoHas: who, Nbytes: n})
				}
				if id := vals("transfer"); len(id) > 0 {
					task.Shuffle = &graph.Shuffle{ID: id[0], Role: graph.Transfer, Outputs: 1}
					m.Shuffle = &protocol.ShuffleRun{ID: id[0], Run: uint64(num("run", 1)), Workers: []protocol.WorkerID{"me"}}
				}
				if id := vals("unpack"); len(id) > 0 {
					task.Shuffle = &graph.Shuffle{ID: id[0], Role: graph.Unpack, Part: int(num("part", 0))}
					for _, n := range vals("sources") {
						v, _ := strconv.Atoi(n)
						task.Shuffle.Sources = append(task.Shuffle.Sources, v)
					}
					m.Shuffle = &protocol.ShuffleRun{ID: id[0], Run: uint64(num("run", 1)), Workers: []protocol.WorkerID{"me"}}
				}
				m.Spec = task.Spec()
				s.ComputeTask(m)
			case "done":
				s.ExecuteDone(graph.Key(first()), Ran{Nbytes: num("nbytes", 8), Took: time.Millisecond, Grew: num("grew", 0)})
			case "failed":
				k := graph.Key(first())
				s.ExecuteFailed(k, &protocol.TaskError{Key: k, Message: "boom"})
			case "free":
				var ks []graph.Key
				for _, v := range vals("keys") {
					ks = append(ks, graph.Key(v))
				}
				s.FreeKeys(&protocol.FreeKeys{Keys: ks})
			case "gathered":
				got := map[graph.Key]int64{}
				for _, kv := range vals("got") {
					k, n, _ := strings.Cut(kv, ":")
					size, _ := strconv.ParseInt(n, 10, 64)
					got[graph.Key(k)] = size
				}
				s.GatherDone(protocol.WorkerID(first()), got, d.HasArg("unreachable"))
			case "steal":
				s.StealRequest(&protocol.StealRequest{Key: graph.Key(first())})
			case "replicate":
				var ks []graph.Key
				for _, v := range vals("keys") {
					ks = append(ks, graph.Key(v))
				}
				s.Replicate(&protocol.Replicate{Keys: ks, From: protocol.WorkerID(vals("from")[0])})
			case "memory":
				r := MemoryReading{Process: num("process", 0), Managed: num("managed", 0), Out: num("out", 0)}
				if d.HasArg("spill-error") {
					r.SpillErr = errors.New("disk full")
				}
				s.Memory(r)
			case "lost":
				var ks []graph.Key
				for _, v := range vals("keys") {
					ks = append(ks, graph.Key(v))
				}
				s.Lost(ks)
			case "push":
				p := &protocol.ShufflePush{ID: first(), Run: uint64(num("run", 1)), Side: int(num("side", 0)),
					Source: int(num("source", 0))}
				if op := vals("merge"); len(op) > 0 {
					p.Merge = op[0]
				}
				var sizes []Size
				for _, kv := range vals("parts") {
					part, n, _ := strings.Cut(kv, ":")
					pn, _ := strconv.Atoi(part)
					size, _ := strconv.ParseInt(n, 10, 64)
					p.Parts = append(p.Parts, pn)
					var v any
					if size > 0 {
						v = size
					}
					p.Values = append(p.Values, v)
					sizes = append(sizes, Size{Bytes: size, Rows: num("rows", -1)})
				}
				kept := s.ShufflePush(p, sizes)
				out := s.Outbox()
				if err := s.Validate(); err != nil {
					d.Fatalf(t, "invariants broken after %s: %v", d.Cmd, err)
				}
				noteMerges(merges, out)
				return fmt.Sprintf("keep %v\n", kept) + formatOutbox(out)
			case "merged":
				j := merges[graph.Key(first())]
				if j == nil {
					d.Fatalf(t, "no merge makes %s", first())
				}
				var err error
				if d.HasArg("failed") {
					err = errors.New("merge failed")
				}
				s.MergeDone(j, Size{Bytes: num("nbytes", 8), Rows: num("rows", -1)}, err)
			case "drop-shuffle":
				s.DropShuffle(&protocol.DropShuffle{ID: first(), Run: uint64(num("run", 1))})
			case "states":
				return dumpStates(s)
			default:
				d.Fatalf(t, "unknown directive %q", d.Cmd)
			}
			if err := s.Validate(); err != nil {
				d.Fatalf(t, "invariants broken after %s: %v", d.Cmd, err)
			}
			out := s.Outbox()
			noteMerges(merges, out)
			return formatOutbox(out)
		})
	})
}

// noteMerges files the merges asked for in out by the key they make.
func noteMerges(merges map[graph.Key]*MergeJob, out []Instruction) {
	for _, in := range out {
		if in.Kind == Merge {
			merges[in.Merge.Key] = in.Merge
		}
	}
}

func formatOutbox(out []Instruction) string {
	var b strings.Builder
	for _, in := range out {
		switch in.Kind {
		case Execute:
			fmt.Fprintf(&b, "execute %s", in.Task.Key)
			if in.Pieces != nil {
				fmt.Fprintf(&b, " pieces=%v", in.Pieces)
			}
			b.WriteByte('\n')
		case Merge:
			fmt.Fprintf(&b, "merge %v into %s\n", in.Merge.Inputs, in.Merge.Key)
		case Gather:
			fmt.Fprintf(&b, "gather %v from %s\n", in.Keys, in.From)
		case Drop:
			fmt.Fprintf(&b, "drop %v\n", in.Keys)
		case Spill:
			fmt.Fprintf(&b, "spill to %d\n", in.Bytes)
		case Prefetch:
			fmt.Fprintf(&b, "prefetch %s\n", in.Task.Key)
		case Send:
			switch m := in.Msg.(type) {
			case *protocol.TaskFinished:
				fmt.Fprintf(&b, "send finished %s nbytes=%d\n", m.Key, m.Nbytes)
			case *protocol.TaskErred:
				fmt.Fprintf(&b, "send erred %s: %s\n", m.Key, m.Err.Message)
			case *protocol.AddKeys:
				fmt.Fprintf(&b, "send add-keys %v\n", m.Keys)
			case *protocol.ReleasedData:
				fmt.Fprintf(&b, "send released %v\n", m.Keys)
			case *protocol.MissingData:
				fmt.Fprintf(&b, "send missing %s from %s\n", m.Key, m.From)
			case *protocol.StealResponse:
				fmt.Fprintf(&b, "send steal-response %s given=%v\n", m.Key, m.Given)
			case *protocol.WorkerStatus:
				fmt.Fprintf(&b, "send status paused=%v %s\n", m.Paused, m.Reason)
			default:
				fmt.Fprintf(&b, "send %T\n", m)
			}
		}
	}
	return b.String()
}

func dumpStates(s *State) string {
	keys := make([]string, 0, len(s.tasks))
	for k := range s.tasks {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		t := s.tasks[graph.Key(k)]
		fmt.Fprintf(&b, "%s %s", k, t.state)
		if t.cancelled {
			b.WriteString(" cancelled")
		}
		if t.spec == nil {
			b.WriteString(" (copy)")
		}
		if t.keep {
			b.WriteString(" kept")
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "free cpu=%g executing=%d", s.free["cpu"], s.executing)
	if s.paused {
		b.WriteString(" paused")
	}
	b.WriteByte('\n')
	return b.String()
}
