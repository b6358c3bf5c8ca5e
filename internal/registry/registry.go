// Package registry maps operation names to the Go functions that run them
// (DESIGN §3): a task names its operation, and any worker built from a binary
// that registered that name can run it.
//
// Must never import: scheduler, worker, a transport, or the collections.
package registry

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/duskdata/dusk/graph"
)

// Context is what an operation knows of the task it runs.
type Context struct {
	context.Context
	// Key is the key of the task being run.
	Key graph.Key
	// Inputs are the keys of its inputs, in the order of their values.
	Inputs []graph.Key
	// Pieces are what a shuffle's unpack assembles: per side, the pieces
	// its transfers pushed, in the order of their sources (empty ones left
	// out). Borrowed, as inputs are.
	Pieces [][]any
	// GPU says the task holds a worker's GPU (it asked for the "GPU"
	// resource): an op registered with RegisterGPU runs its GPU kernels
	// when the process has a GPU, and its CPU path otherwise.
	GPU bool
}

// Split is what a shuffle transfer's operation returns: Pieces[j] holds its
// input's rows for output partition j, nil for none. The worker pushes each
// piece to the worker that assembles that output; Split owns the pieces.
type Split struct{ Pieces []any }

// Op runs one task: args are the task's encoded arguments and inputs the
// values of its input keys, in order. Inputs are borrowed: an op must not
// release or modify them. The result it returns belongs to the caller.
type Op func(tc *Context, args []byte, inputs []any) (any, error)

var (
	mu       sync.RWMutex
	ops      = map[string]Op{}
	effects  = map[string]bool{}
	gpuOps   = map[string]bool{}
	provided = map[string]bool{}
)

// RegisterGPU registers op as Register does, as an operation with GPU
// kernels: a client that asks for the GPU (dusk.WithGPU) places its tasks
// on GPU workers.
func RegisterGPU(name string, op Op) {
	Register(name, op)
	mu.Lock()
	gpuOps[name] = true
	mu.Unlock()
}

// HasGPU reports whether the operation name was registered with
// RegisterGPU.
func HasGPU(name string) bool {
	mu.RLock()
	defer mu.RUnlock()
	return gpuOps[name]
}

// RegisterEffect registers op as Register does, as an operation whose work
// is a side effect (writing files): its result must never be taken from a
// cache in place of running it.
func RegisterEffect(name string, op Op) {
	Register(name, op)
	mu.Lock()
	effects[name] = true
	mu.Unlock()
}

// HasEffect reports whether the operation name was registered with
// RegisterEffect.
func HasEffect(name string) bool {
	mu.RLock()
	defer mu.RUnlock()
	return effects[name]
}

// Register makes op runnable under name. Registering a name twice is a
// programming error and panics, naming it, so that the clash shows at start.
func Register(name string, op Op) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || op == nil {
		panic("registry: Register needs a name and an op")
	}
	if _, ok := ops[name]; ok {
		panic(fmt.Sprintf("registry: operation %q is registered twice", name))
	}
	ops[name] = op
}

// readsOf holds what RegisterReads registered.
var readsOf = map[string]func(args []byte) ([]string, error){}

// RegisterReads says which columns of its input (a dataframe partition)
// the operation name reads, given its arguments: a worker whose input was
// spilled column by column reads back those columns alone.
func RegisterReads(name string, cols func(args []byte) ([]string, error)) {
	mu.Lock()
	readsOf[name] = cols
	mu.Unlock()
}

// Reads returns the columns of its input that the operation name reads
// with args, or false when it did not say (RegisterReads) or its arguments
// do not tell: it reads them all.
func Reads(name string, args []byte) ([]string, bool) {
	mu.RLock()
	fn := readsOf[name]
	mu.RUnlock()
	if fn == nil {
		return nil, false
	}
	cols, err := fn(args)
	return cols, err == nil
}

var hints = map[string]string{} // name prefix: how to register such ops

// Hint says how to register the operations whose names start with prefix,
// for the error of a worker that lacks one (a collection's operations
// registered per type, say).
func Hint(prefix, how string) {
	mu.Lock()
	hints[prefix] = how
	mu.Unlock()
}

// UnknownOpError is returned by Lookup for a name nothing registered.
type UnknownOpError struct {
	Name string
	How  string // how to register it, when a Hint covers the name
}

func (e *UnknownOpError) Error() string {
	if e.How != "" {
		return fmt.Sprintf("operation %q is not registered in this worker's binary: %s, "+
			"and run workers built from that binary (the local cluster always has it)", e.Name, e.How)
	}
	return fmt.Sprintf("operation %q is not registered in this worker's binary: "+
		"register it with dusk.Register(%q, fn) in an init function or package-level "+
		"variable of a package that the worker's main imports, and run workers "+
		"built from that binary (the local cluster always has it)", e.Name, e.Name)
}

// Provide records that this binary has something a task may need beside
// its operation (graph.Task.Needs): a bag function's "bag:name", say.
func Provide(name string) {
	mu.Lock()
	provided[name] = true
	mu.Unlock()
}

// Names are the operations registered and the names provided, sorted: a
// worker announces them, so that a scheduler with workers of several
// binaries places each task on one that has what it needs.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(ops)+len(provided))
	for n := range ops {
		names = append(names, n)
	}
	for n := range provided {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the op registered under name, or an *UnknownOpError.
func Lookup(name string) (Op, error) {
	mu.RLock()
	defer mu.RUnlock()
	op, ok := ops[name]
	if !ok {
		err := &UnknownOpError{Name: name}
		best := 0 // the longest prefix that covers name gives the hint
		for prefix, how := range hints {
			if strings.HasPrefix(name, prefix) && len(prefix) > best {
				err.How, best = how, len(prefix)
			}
		}
		return nil, err
	}
	return op, nil
}

// BarrierOp is the operation of every shuffle's barrier: it only waits for
// the transfers, its inputs, which hold nothing.
const BarrierOp = "shuffle-barrier"

func init() {
	Register(BarrierOp, func(*Context, []byte, []any) (any, error) { return int64(0), nil })
}

// Part names the partition of the task being run, for errors: the index
// its key ends with, else the whole key ("?" without a context).
func (tc *Context) Part() string {
	if tc == nil {
		return "?"
	}
	k := string(tc.Key)
	i := strings.LastIndexByte(k, '-')
	if _, err := strconv.Atoi(k[i+1:]); i < 0 || err != nil {
		return k
	}
	return k[i+1:]
}

// Retain takes a reference to v if it is reference counted (Arrow values):
// operations' results are shared by reference between a worker's store, its
// tasks and its peers.
func Retain(v any) {
	if r, ok := v.(interface{ Retain() }); ok {
		r.Retain()
	}
}

// Release gives up a reference to v if it is reference counted.
func Release(v any) {
	if r, ok := v.(interface{ Release() }); ok {
		r.Release()
	}
}
