// Package protocol defines the messages that the client, the scheduler and
// the workers exchange. They are plain values: the in-process transport hands
// them over as they are, the gRPC transport encodes them.
//
// Must never import: a transport, scheduler, worker, or the collections.
package protocol

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/duskdata/dusk/graph"
)

// Version is this build's protocol version. Peers exchange it first and
// refuse each other when it differs.
const Version = "0.4.0" // 0.4: tasks travel as graph.Spec bytes

// WorkerID names a worker: the address it serves its data on.
type WorkerID string

// ClientID names one connected client.
type ClientID string

// The scheduler's own wants, held for clients that may be gone: keys to
// compute though every client released them (fire and forget), and the
// keys of a published dataset. Messages to them are not sent anywhere.
const (
	FireAndForget ClientID = "@fire-and-forget"
	datasetPrefix          = "@dataset/"
)

// DatasetClient is the scheduler's want on the keys of dataset name.
func DatasetClient(name string) ClientID { return ClientID(datasetPrefix + name) }

// Internal reports whether c is one of the scheduler's own wants.
func (c ClientID) Internal() bool { return len(c) > 0 && c[0] == '@' }

// Msg is any message below.
type Msg interface{ isMsg() }

// HelloWorker opens a worker's stream to the scheduler.
type HelloWorker struct {
	Version  string
	ID       WorkerID
	Name     string // for people; ID is what peers dial
	NThreads int
	// Resources is what the worker offers, "cpu" and "memory" included.
	Resources graph.Resources
	// Dashboard is where the worker serves its /metrics (HOST:PORT), or "".
	Dashboard string
	// Restarted is why its nanny started this process again ("" the first
	// time): RestartDied or RestartKilled.
	Restarted string
	// Ops are the operations its binary registers (registry.Names), so
	// that tasks go to workers that can run them in a pool of several
	// binaries.
	Ops []string
}

// Why a nanny restarted its worker, as HelloWorker.Restarted says.
const (
	RestartDied   = "died"
	RestartKilled = "killed for memory"
)

// HelloClient opens a client's stream to the scheduler.
type HelloClient struct {
	Version string
	ID      ClientID
}

// Welcome is the scheduler's answer to a hello: Err is empty when accepted.
// Gossip is where workers join the scheduler's membership cluster, if it
// runs one.
type Welcome struct {
	Version string
	Err     string
	Gossip  string
	// GossipKey encrypts the membership cluster's messages; the scheduler
	// sends it only over TLS, which authenticated the worker.
	GossipKey []byte
	// Dashboard is where the scheduler serves its dashboard (HOST:PORT;
	// the host empty where it is the scheduler's), or "" if it does not.
	Dashboard string
}

// Priority orders tasks: lower runs first. Gen counts graph submissions, so
// that earlier computations finish first; Ord is the task's place in its graph.
type Priority struct{ Gen, Ord int64 }

// Less reports whether p runs before q.
func (p Priority) Less(q Priority) bool {
	if p.Gen != q.Gen {
		return p.Gen < q.Gen
	}
	return p.Ord < q.Ord
}

// Dep says where an input of a task lives and how large it is.
type Dep struct {
	Key    graph.Key
	WhoHas []WorkerID
	Nbytes int64
}

// ComputeTask asks a worker to run a task once its inputs are there.
type ComputeTask struct {
	Spec     graph.Spec // the task, as the client encoded it
	Priority Priority
	// Run numbers this assignment; reports of an earlier run of the same
	// key are stale and ignored.
	Run uint64
	// Deps has one entry per distinct input, in the order of the task's inputs.
	Deps []Dep
	// Shuffle is the run of the task's shuffle, for a transfer or an unpack.
	Shuffle *ShuffleRun
}

// ShuffleRun is one attempt at a shuffle: its workers, in order, assemble
// its output partitions, partition j in slot j % len(Workers). A slot
// whose worker was lost is empty (""): its partitions are spread over the
// workers left, so that a shuffle that loses a worker redoes only the
// partitions it assembled. Gens[i] is the run in which slot i's
// partitions were last given to their workers: pieces are pushed and kept
// under it, so pieces of the partitions a restart kept stay valid, and
// those of partitions that moved are told apart from the old ones.
type ShuffleRun struct {
	ID      string
	Run     uint64
	Workers []WorkerID
	Gens    []uint64
	// Since is set for a transfer that delivered its pieces in an earlier
	// run: it pushes only the partitions given out after run Since.
	Since uint64
}

// Owner is the worker that assembles output partition part.
func (r *ShuffleRun) Owner(part int) WorkerID {
	n := len(r.Workers)
	if w := r.Workers[part%n]; w != "" {
		return w
	}
	var live []WorkerID
	for _, w := range r.Workers {
		if w != "" {
			live = append(live, w)
		}
	}
	return live[(part/n)%len(live)]
}

// Gen is the run under which output partition part's pieces are kept.
func (r *ShuffleRun) Gen(part int) uint64 {
	if len(r.Gens) == 0 {
		return r.Run
	}
	return r.Gens[part%len(r.Gens)]
}

// Destination is where a transfer pushes some of its pieces: the output
// partitions Parts, all assembled by Owner and given out in run Gen.
type Destination struct {
	Owner WorkerID
	Gen   uint64
	Parts []int
}

// Destinations groups the output partitions [0, outputs) a transfer pushes
// by their worker and the run they were given out in, in that order,
// leaving out those it delivered before (Since).
func (r *ShuffleRun) Destinations(outputs int) []Destination {
	var out []Destination
	for part := range outputs {
		owner, gen := r.Owner(part), r.Gen(part)
		if gen <= r.Since {
			continue
		}
		i := slices.IndexFunc(out, func(d Destination) bool { return d.Owner == owner && d.Gen == gen })
		if i < 0 {
			i = len(out)
			out = append(out, Destination{Owner: owner, Gen: gen})
		}
		out[i].Parts = append(out[i].Parts, part)
	}
	slices.SortFunc(out, func(a, b Destination) int {
		return cmp.Or(strings.Compare(string(a.Owner), string(b.Owner)), cmp.Compare(a.Gen, b.Gen))
	})
	return out
}

// DropShuffle tells a worker to drop the pieces of shuffle ID of runs up
// to Run: the shuffle started again from nothing, or is over.
type DropShuffle struct {
	ID  string
	Run uint64
}

// ShufflePush carries one transfer's pieces for the output partitions a
// worker assembles: Values[i] belongs to output Parts[i], nil for a piece
// without rows. It travels worker to worker, outside the message streams.
// Run is the run its parts were given out in (ShuffleRun.Gen), the same
// for all of them.
type ShufflePush struct {
	ID     string
	Run    uint64
	Side   int
	Source int
	Parts  []int
	Values []any
	// Merge and MergeArgs are the transfer's graph.Shuffle's: how the
	// receiver combines an output's pieces as they arrive.
	Merge     string
	MergeArgs []byte
}

// FreeKeys tells a worker to forget tasks and drop the results it holds.
type FreeKeys struct{ Keys []graph.Key }

// TaskFinished reports a result now held by the sending worker.
type TaskFinished struct {
	Key      graph.Key
	Run      uint64 // the ComputeTask's
	Nbytes   int64
	Duration time.Duration // 0 when the result was fetched, not computed
	// Start and Thread say when, by the worker's clock, and on which of its
	// threads it ran: the task stream's bar.
	Start  time.Time
	Thread int
}

// TaskErred reports a task whose operation failed on the sending worker.
type TaskErred struct {
	Key graph.Key
	Run uint64 // the ComputeTask's
	Err *TaskError
}

// AddKeys reports copies a worker fetched from peers and now holds too.
type AddKeys struct {
	Keys   []graph.Key
	Nbytes []int64
}

// ReleasedData reports copies a worker no longer holds.
type ReleasedData struct{ Keys []graph.Key }

// MissingData reports that From did not have Key when asked for it. Workers
// send it when no holder they know has an input, or when they lost a result
// of their own (a corrupt spill file, From being themselves); clients when
// a holder the scheduler named does not have a result. Clients, and workers
// about their own results, set Run to the run of the result they missed:
// a copy made since (a recomputation) is not the one missed.
type MissingData struct {
	Key  graph.Key
	From WorkerID
	Run  uint64
}

// StealRequest asks a worker to give back a task it has not started, so
// that an idle worker can run it.
type StealRequest struct{ Key graph.Key }

// StealResponse answers a StealRequest: Given when the worker dropped the
// task unstarted; otherwise it runs or has run it, and reports as usual.
type StealResponse struct {
	Key   graph.Key
	Given bool
}

// Retire tells the scheduler that the sending worker wants to leave: it
// gets no new work, and what only it holds is copied elsewhere first.
type Retire struct{}

// PeerLost tells a worker that the scheduler declared another worker lost:
// its transfers with that worker end at once, as TCP would end them only
// when the link came back or after minutes.
type PeerLost struct{ Worker WorkerID }

// Replicate asks a worker to fetch copies of Keys from From and keep them.
type Replicate struct {
	Keys []graph.Key
	From WorkerID
}

// WorkerStatus tells the scheduler that the sending worker paused (its
// memory is high: it starts no task until it falls) or resumed.
type WorkerStatus struct {
	Paused bool
	Reason string
}

// Memory is a worker's memory as it last measured it, in bytes.
type Memory struct {
	// Limit is the memory the worker may use; 0 when it has none.
	Limit int64
	// Process is what the operating system counts for the worker (its
	// resident set).
	Process int64
	// Managed is the results held in memory, by the store's exact count.
	Managed int64
	// Spilled is the bytes on disk, as written (compressed): of the
	// results spilled, and of the copies kept of those read back.
	Spilled int64
	// SpilledTotal is the in-memory size of every result moved to disk so
	// far; UnspilledTotal of those read back.
	SpilledTotal, UnspilledTotal int64
	// SpillError is why writing to disk fails, if it does.
	SpillError string
}

// Unmanaged is the process memory that is not results: the program, buffers
// of running tasks and transfers, and memory freed but not yet returned to
// the operating system.
func (m Memory) Unmanaged() int64 { return max(m.Process-m.Managed, 0) }

// WorkerMetrics reports the sending worker's memory, CPU and traffic,
// every second or so, with what it did besides running tasks since the
// last report (transfers, spills: task stream records of those kinds,
// Worker left empty) and its log lines.
type WorkerMetrics struct {
	Memory Memory
	// CPU is the cores the worker's process kept busy since the last
	// report (1.5: one and a half).
	CPU float64
	// Received and Sent are the bytes of results fetched from peers and
	// served to them so far, as they are in memory.
	Received, Sent int64
	// WireReceived and WireSent are the bytes its connections carried so
	// far, everything included (results, pushes, messages), compressed as
	// they travelled: what the network interface counts, less the headers.
	WireReceived, WireSent int64
	// Bandwidth is the rate of its recent fetches of a megabyte or more
	// from peers, in bytes (as held in memory) a second, a moving average
	// as Dask's; 0: none measured yet.
	Bandwidth float64
	Activity  []TaskRecord
	Logs      []LogLine
}

// LogLine is one line a worker or the scheduler logged, for the Logs page.
type LogLine struct {
	Time    int64  `json:"time"` // Unix milliseconds
	Level   string `json:"level"`
	Message string `json:"message"`
	Attrs   string `json:"attrs"`            // key=value, space-separated
	Worker  string `json:"worker,omitempty"` // the worker that logged it; "" the scheduler
}

// WorkersQuery asks the scheduler for the workers it knows; it answers with
// a WorkersReply of the same ID once it knows at least AtLeast of them
// (Dask's wait_for_workers).
type WorkersQuery struct {
	ID      uint64
	AtLeast int
}

// WorkersReply lists the workers.
type WorkersReply struct {
	ID      uint64
	Workers []WorkerInfo
}

// WorkerInfo is what the scheduler knows of a worker.
type WorkerInfo struct {
	ID        WorkerID
	Name      string
	NThreads  int
	Resources graph.Resources
	// Processing is how many tasks it has been given; Held is the bytes of
	// the results the scheduler knows it holds.
	Processing int
	Held       int64
	Memory     Memory
	// Paused is set while its memory is too high to take tasks, for Reason.
	Paused   bool
	Reason   string
	Retiring bool
	// CPU is the cores it kept busy, Received and Sent its traffic with
	// peers, as it last reported them (WorkerMetrics).
	CPU                    float64
	Received, Sent         int64
	WireReceived, WireSent int64
	// Dashboard is where it serves its /metrics, if it does.
	Dashboard string
	// LastSeen is when the scheduler last heard from it; zero where only
	// the core answers (it keeps no clock).
	LastSeen time.Time
}

// Progress is where the tasks of one key prefix (a task kind: "read-csv",
// "groupby-chunk") stand, as Dask's progress panel shows them: Done counts
// tasks that ran and whose results were released since; Waiting those not
// yet run (released, waiting, queued or without a worker).
type Progress struct {
	Prefix                                   string
	Waiting, Processing, Memory, Done, Erred int
}

// Total is every task of the prefix, finished or not.
func (p Progress) Total() int { return p.Waiting + p.Processing + p.Memory + p.Done + p.Erred }

// TaskRecord is one task run, for the task stream: where, on which thread,
// from when to when (the worker's clock), and the size of its result. A
// record of another Kind is a worker's transfer or disk I/O: its Key is
// the (first) result moved, its Prefix the kind, its Thread -1.
type TaskRecord struct {
	Key         graph.Key
	Prefix      string
	Worker      WorkerID
	Thread      int
	Start, Stop time.Time
	Nbytes      int64
	// Kind is "" for a task run, else one of the Record kinds.
	Kind string
	// Peer is the worker a transfer came from.
	Peer WorkerID
}

// The kinds of task stream records that are not task runs, named as Dask's
// task stream names them.
const (
	RecordTransfer  = "transfer"
	RecordDiskWrite = "disk-write"
	RecordDiskRead  = "disk-read"
)

// RecordPrefix is the Prefix of a record of key k and kind: the key's for
// a task run, else the kind, so that the pages colour transfers alike.
func RecordPrefix(k graph.Key, kind string) string {
	if kind == "" {
		return k.Prefix()
	}
	return kind
}

// Group is the graph at the scale of task kinds: a kind's tasks by state,
// and the kinds its tasks take inputs from.
type Group struct {
	Progress
	Inputs []string
}

// TaskInfo is what the scheduler knows of one task, for the dashboard's
// Tasks page: its state, where its result is or where it runs, its size,
// its error, and its neighbours in the graph.
type TaskInfo struct {
	Key          graph.Key
	State        string
	WhoHas       []WorkerID
	ProcessingOn WorkerID
	Nbytes       int64
	Err          *TaskError
	Dependencies []graph.Key
	Dependents   []graph.Key
}

// ProgressQuery asks the scheduler where the tasks stand by kind; it
// answers with a ProgressReply of the same ID.
type ProgressQuery struct{ ID uint64 }

// ProgressReply is the tasks by kind, as Progress says.
type ProgressReply struct {
	ID       uint64
	Progress []Progress
}

// TaskStreamQuery asks the scheduler for the task stream's records
// numbered Since and later; it answers with a TaskStreamReply.
type TaskStreamQuery struct{ ID, Since uint64 }

// TaskStreamReply carries task records, oldest first, and the number of
// the next record (to ask for next time).
type TaskStreamReply struct {
	ID      uint64
	Records []TaskRecord
	Next    uint64
}

// Adapt asks the scheduler to keep between Min and Max workers, started
// and stopped by its provider with the load (Client.Adapt); it answers
// with an AdaptReply, whose Err says why not (no provider).
type Adapt struct {
	ID       uint64
	Min, Max int
}

// AdaptReply answers an Adapt: Max is the bound in force (capped by the
// scheduler's --max-workers).
type AdaptReply struct {
	ID  uint64
	Max int
	Err string
}

// Shared asks the scheduler about the state it keeps for clients to share:
// named variables, queues, locks and events (Dask's coordination
// primitives), published datasets, and fire-and-forget keys. Each is
// answered by a SharedReply of its ID, at once or, for an operation that
// waits (SharedQueueGet, SharedLockAcquire, SharedEventWait, SharedVarGet of
// an unset variable), when it can go on. SharedCancel gives up the wait of
// request Target: that request is answered then, as done or as cancelled.
type Shared struct {
	ID     uint64
	Op     SharedOp
	Name   string
	Value  []byte      // a variable's or queued value, a lock holder's token, a dataset's description
	Keys   []graph.Key // a dataset's partitions; keys to fire and forget
	Target uint64      // SharedCancel: the request to give up
}

// SharedOp is what a Shared request does.
type SharedOp uint8

// The operations on shared state; what each does is in the scheduler's
// table of them.
const (
	SharedVarSet SharedOp = iota + 1
	SharedVarGet
	SharedVarDelete
	SharedQueuePut
	SharedQueueGet
	SharedQueueLen
	SharedLockAcquire
	SharedLockRelease
	SharedEventSet
	SharedEventClear
	SharedEventWait
	SharedEventIsSet
	SharedPublish
	SharedDataset
	SharedUnpublish
	SharedDatasets
	SharedForget
	SharedCancel
)

// SharedReply answers a Shared request.
type SharedReply struct {
	ID    uint64
	Value []byte
	Keys  []graph.Key
	Found bool // the thing asked for is there (a variable set, an event set, a dataset published)
	N     int  // a queue's length
	Err   string
}

// Profile starts (Start) or stops a CPU profile of every worker, for a
// performance report: a client asks the scheduler, which tells each
// worker. A worker told to stop first reports its metrics (so that its
// last transfers and spills are in the task stream), then sends its
// profile as ProfileData of the scheduler's ID; the scheduler answers the
// client with a ProfileReply of the client's ID once every worker did.
type Profile struct {
	ID    uint64
	Start bool
}

// ProfileData is one worker's CPU profile, in pprof's format, or why it has
// none (Err). Workers in one process share its profile: one sends it, the
// others say so.
type ProfileData struct {
	ID     uint64
	Worker WorkerID
	Data   []byte
	Err    string
}

// ProfileReply carries the workers' profiles.
type ProfileReply struct {
	ID       uint64
	Profiles []ProfileData
}

// SchedulerQuery asks the scheduler of its own process's memory; it
// answers with a SchedulerReply of the same ID.
type SchedulerQuery struct{ ID uint64 }

// SchedulerReply is the scheduler process's resident memory, now and at
// its peak (0 where the system does not say).
type SchedulerReply struct {
	ID           uint64
	RSS, PeakRSS int64
}

// Retired tells a retiring worker that nothing depends on it any more.
type Retired struct{}

// UpdateGraph submits tasks and names the keys the client wants.
type UpdateGraph struct {
	Tasks []graph.Spec
	Keys  []graph.Key
	// MaxWorkers, when positive, is how many workers may run the new tasks
	// at once.
	MaxWorkers int
	// More parts of the same graph follow from the same client: a graph
	// larger than a message goes in parts, which the scheduler files as
	// they come; the last has the keys and MaxWorkers.
	More bool
}

// ReleaseKeys says the client no longer wants the keys.
type ReleaseKeys struct{ Keys []graph.Key }

// KeyInMemory tells a client that a key it wants is ready, and where.
type KeyInMemory struct {
	Key    graph.Key
	WhoHas []WorkerID
	Nbytes int64
	Run    uint64 // the run that computed it
}

// KeyErred tells a client that a key it wants cannot be computed.
type KeyErred struct {
	Key graph.Key
	Err *TaskError
}

func (*HelloWorker) isMsg()     {}
func (*PeerLost) isMsg()        {}
func (*HelloClient) isMsg()     {}
func (*Welcome) isMsg()         {}
func (*ComputeTask) isMsg()     {}
func (*FreeKeys) isMsg()        {}
func (*TaskFinished) isMsg()    {}
func (*TaskErred) isMsg()       {}
func (*AddKeys) isMsg()         {}
func (*ReleasedData) isMsg()    {}
func (*MissingData) isMsg()     {}
func (*UpdateGraph) isMsg()     {}
func (*ReleaseKeys) isMsg()     {}
func (*KeyInMemory) isMsg()     {}
func (*KeyErred) isMsg()        {}
func (*StealRequest) isMsg()    {}
func (*StealResponse) isMsg()   {}
func (*Retire) isMsg()          {}
func (*Replicate) isMsg()       {}
func (*Retired) isMsg()         {}
func (*WorkerStatus) isMsg()    {}
func (*WorkerMetrics) isMsg()   {}
func (*WorkersQuery) isMsg()    {}
func (*WorkersReply) isMsg()    {}
func (*DropShuffle) isMsg()     {}
func (*TaskStreamReply) isMsg() {}
func (*Adapt) isMsg()           {}
func (*AdaptReply) isMsg()      {}
func (*Shared) isMsg()          {}
func (*SharedReply) isMsg()     {}
func (*Profile) isMsg()         {}
func (*ProfileData) isMsg()     {}
func (*ProfileReply) isMsg()    {}
func (*SchedulerQuery) isMsg()  {}
func (*SchedulerReply) isMsg()  {}
func (*TaskStreamQuery) isMsg() {}
func (*ProgressReply) isMsg()   {}
func (*ProgressQuery) isMsg()   {}

// ErrorKind tells apart the ways a task fails. It is an error itself, so
// that errors.Is(err, kind) asks whether a task failed that way.
type ErrorKind int

const (
	// Failed: the operation returned an error or panicked (the user's code or
	// data). Such a task is not retried.
	Failed ErrorKind = iota
	// KilledWorker: workers died while running the task more times than
	// allowed; the task is suspected of killing them.
	KilledWorker
	// NoWorker: no worker offers the resources the task asks for.
	NoWorker
	// Lost: the task's input is gone and can't be recomputed.
	Lost
	// Retry: the task failed for a reason outside it (a shuffle peer that
	// could not be reached, pieces that never arrived): the scheduler
	// starts its shuffle again, a few times at most.
	Retry
	// Cancelled: the client cancelled the task before it finished.
	Cancelled
)

var kindNames = [...]string{
	Failed:       "task failed",
	KilledWorker: "task killed its workers",
	NoWorker:     "no worker can run the task",
	Lost:         "task's input was lost",
	Retry:        "task to be retried",
	Cancelled:    "task cancelled",
}

func (k ErrorKind) Error() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("task error kind %d", int(k))
}

// TaskError is why a task failed. Dependents of a failed task fail with the
// same error, so the key in it is the task that went wrong.
type TaskError struct {
	Kind    ErrorKind
	Key     graph.Key
	Worker  WorkerID // where it ran, if it did
	Message string
	Stack   string // the goroutine's stack when the operation panicked
	Type    string // the Go type of the operation's error ("*fs.PathError"), if it returned one
	// Cause is the operation's own error, where the task ran in this
	// process; across processes it is nil, and Unwrap gives a RemoteError.
	Cause error `json:"-"`
}

// Error leads with the operation and the partition, then says what went
// wrong, and names the task and the worker last, for whoever digs deeper.
func (e *TaskError) Error() string {
	var b strings.Builder
	b.WriteString(e.Key.Prefix())
	if i, ok := e.Key.Partition(); ok {
		fmt.Fprintf(&b, " partition %d", i)
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	b.WriteString(" (task ")
	b.WriteString(string(e.Key))
	if e.Worker != "" {
		b.WriteString(" on worker ")
		b.WriteString(string(e.Worker))
	}
	b.WriteString(")")
	return b.String()
}

// Unwrap is the operation's error: itself where it ran in this process, a
// RemoteError with its type and text where it ran in another.
func (e *TaskError) Unwrap() error {
	if e.Cause != nil {
		return e.Cause
	}
	if e.Kind != Failed || e.Type == "" {
		return nil
	}
	return &RemoteError{Type: e.Type, Message: e.Message, Stack: e.Stack}
}

// Is reports whether the task failed the way target, an ErrorKind, says.
func (e *TaskError) Is(target error) bool {
	k, ok := target.(ErrorKind)
	return ok && k == e.Kind
}

// RemoteError is an operation's error from another process: its Go type's
// name and its text, as the worker that ran it saw them.
type RemoteError struct {
	Type    string
	Message string
	Stack   string
}

func (e *RemoteError) Error() string { return e.Message }
