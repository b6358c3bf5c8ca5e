package array

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"

	"github.com/duskdata/dusk/collections"
	"github.com/duskdata/dusk/graph"
)

// Array is a lazy, chunked n-dimensional array: a plan whose chunks are
// computed by tasks on the cluster when Compute or Persist is called.
// Methods return new arrays and never change the one they are called on; an
// error made in building one is carried along and returned by Compute.
type Array struct {
	shape  []int
	chunks [][]int // per axis, the sizes of its chunks; they sum to shape
	dtype  DType
	n      *node
	err    error
	pin    *collections.Pin // a persisted array's results
}

// node is one step of the plan. Equal steps over equal inputs have equal
// names, so they are lowered once and their keys are shared.
type node struct {
	tok   string
	lower func(l *lowering) []graph.Key // chunk keys, grid in row-major order
	// gen, when set, is the generator every chunk comes from: full
	// reductions generate and reduce it block by block, chunk never whole.
	gen *genArgs
	// lit, when set, is the value of a 0-d array known when it is built.
	lit *float64
	// keep is what must stay reachable while the plan is (a persisted
	// frame whose keys the plan reads).
	keep any
}

func failed(err error) *Array { return &Array{err: err} }

// WithNeeds makes the tasks that compute this array's chunks (the last
// step's, not its inputs') ask for n on the worker that runs them, held
// while each runs, as Metaflow's @resources does for a step.
func (a *Array) WithNeeds(n graph.Needs) *Array {
	r := n.Resources()
	if a.err != nil || len(r) == 0 {
		return a
	}
	out := *a
	out.n = &node{tok: token("array-needs", mustJSON(r), a), keep: a.n.keep, lit: a.n.lit,
		lower: func(l *lowering) []graph.Key {
			ks := l.keys(a)
			l.g.Require(ks, r)
			return ks
		}}
	return &out
}

// Err returns the first error made in building the array, or nil.
func (a *Array) Err() error { return a.err }

// Shape is the array's length along each axis.
func (a *Array) Shape() []int { return append([]int{}, a.shape...) }

// Chunks is, per axis, the sizes of the chunks along it.
func (a *Array) Chunks() [][]int {
	out := make([][]int, len(a.chunks))
	for i, c := range a.chunks {
		out[i] = append([]int{}, c...)
	}
	return out
}

// DType is the element type.
func (a *Array) DType() DType { return a.dtype }

// NDim is the number of axes.
func (a *Array) NDim() int { return len(a.shape) }

// Size is the number of elements.
func (a *Array) Size() int { return prod(a.shape) }

// NumChunks is the number of chunks (tasks) the array is made of.
func (a *Array) NumChunks() int {
	n := 1
	for _, c := range a.chunks {
		n *= len(c)
	}
	return n
}

func (a *Array) String() string {
	if a.err != nil {
		return "array(error: " + a.err.Error() + ")"
	}
	return fmt.Sprintf("array(shape=%v, chunks=%v, dtype=%s)", a.shape, a.chunks, a.dtype)
}

// lowering turns a plan into a graph, each step once.
type lowering struct {
	g    *graph.Graph
	done map[string][]graph.Key
}

func newLowering() *lowering {
	return &lowering{g: graph.New(), done: make(map[string][]graph.Key)}
}

func (l *lowering) keys(a *Array) []graph.Key {
	if ks, ok := l.done[a.n.tok]; ok {
		return ks
	}
	ks := a.n.lower(l)
	l.done[a.n.tok] = ks
	return ks
}

// add adds a task and returns its key.
func (l *lowering) add(k graph.Key, op string, args []byte, inputs ...graph.Key) graph.Key {
	l.g.Add(&graph.Task{Key: k, Op: op, Args: args, Inputs: inputs})
	return k
}

// combine adds a task of a reduction that combines a group of partials
// (graph.Task.Combine).
func (l *lowering) combine(k graph.Key, op string, args []byte, inputs ...graph.Key) graph.Key {
	l.g.Add(&graph.Task{Key: k, Op: op, Args: args, Inputs: inputs, Combine: true})
	return k
}

// token names a step from its kind, arguments and inputs.
func token(prefix string, args []byte, inputs ...*Array) string {
	names := make([]string, len(inputs))
	for i, in := range inputs {
		names[i] = in.n.tok
	}
	return graph.Name(prefix, prefix, args, names...)
}

// mustJSON encodes an operation's arguments, which are plain data.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("array: encode arguments: %v", err))
	}
	return b
}

func (a *Array) executor(ctx context.Context) (collections.Executor, error) {
	if a.err != nil {
		return nil, a.err
	}
	return collections.ExecutorFrom(ctx)
}

// Compute runs the plan and returns the whole array in memory; a 0-d array
// (a full reduction) gives a Dense with an empty shape and one element.
func (a *Array) Compute(ctx context.Context) (*Dense, error) {
	ex, err := a.executor(ctx)
	if err != nil {
		return nil, err
	}
	l := newLowering()
	keys := l.keys(a)
	values, err := ex.Compute(ctx, l.g, keys)
	runtime.KeepAlive(a) // a persisted array's pin holds its keys until here
	if err != nil {
		return nil, err
	}
	if len(values) == 1 {
		if d, ok := values[0].(*Dense); ok && slices.Equal(d.Shape, a.shape) {
			return d, nil
		}
	}
	out := newDense(a.dtype, a.shape)
	g := a.grid()
	for i, v := range values {
		d, ok := v.(*Dense)
		if !ok {
			return nil, fmt.Errorf("array: chunk %d is a %T, not an array chunk", i, v)
		}
		off, shape := g.chunk(i)
		copyBox(out, off, d, make([]int, len(shape)), shape)
	}
	return out, nil
}

// Persist runs the plan and keeps the chunks in the workers' memory; the
// array it returns reads them from there. They are released by Release or
// when that array is no longer reachable.
func (a *Array) Persist(ctx context.Context) (*Array, error) {
	ex, err := a.executor(ctx)
	if err != nil {
		return nil, err
	}
	if a.pin != nil {
		return a, nil
	}
	l := newLowering()
	keys := l.keys(a)
	release, err := ex.Persist(ctx, l.g, keys)
	runtime.KeepAlive(a)
	if err != nil {
		return nil, err
	}
	out := *a
	out.pin = collections.NewPin(release)
	out.n = &node{tok: a.n.tok, lower: func(*lowering) []graph.Key { return keys }, lit: a.n.lit}
	return &out, nil
}

// Release lets the cluster drop a persisted array's chunks; it does nothing
// for an array that was not persisted. The array must not be used after.
func (a *Array) Release() {
	if a.pin != nil {
		a.pin.Release()
	}
}

// grid is the layout of an array's chunks.
type grid struct {
	chunks  [][]int
	offsets [][]int // per axis, where each chunk starts
	counts  []int   // chunks per axis
}

func (a *Array) grid() grid { return newGrid(a.chunks) }

func newGrid(chunks [][]int) grid {
	g := grid{chunks: chunks, offsets: make([][]int, len(chunks)), counts: make([]int, len(chunks))}
	for ax, c := range chunks {
		g.counts[ax] = len(c)
		g.offsets[ax] = make([]int, len(c)+1)
		for i, s := range c {
			g.offsets[ax][i+1] = g.offsets[ax][i] + s
		}
	}
	return g
}

func (g grid) len() int { return prod(g.counts) }

// pos returns the grid position of chunk i (row-major).
func (g grid) pos(i int) []int {
	p := make([]int, len(g.counts))
	for ax := len(p) - 1; ax >= 0; ax-- {
		p[ax] = i % g.counts[ax]
		i /= g.counts[ax]
	}
	return p
}

// index is the row-major number of the chunk at grid position p.
func (g grid) index(p []int) int {
	i := 0
	for ax, v := range p {
		i = i*g.counts[ax] + v
	}
	return i
}

// chunk returns the offset and shape of chunk i.
func (g grid) chunk(i int) (off, shape []int) {
	p := g.pos(i)
	off, shape = make([]int, len(p)), make([]int, len(p))
	for ax, v := range p {
		off[ax], shape[ax] = g.offsets[ax][v], g.chunks[ax][v]
	}
	return off, shape
}

// normChunks splits each axis of shape into chunks of the size given for it
// (the last one shorter when it does not divide); a size of 0 or less, or
// a missing one, takes the whole axis.
func normChunks(shape, chunk []int) ([][]int, error) {
	out := make([][]int, len(shape))
	for ax, n := range shape {
		if n < 0 {
			return nil, fmt.Errorf("negative length %d on axis %d", n, ax)
		}
		c := n
		if ax < len(chunk) && chunk[ax] > 0 {
			c = min(chunk[ax], n)
		}
		if n == 0 {
			out[ax] = []int{0}
			continue
		}
		for lo := 0; lo < n; lo += c {
			out[ax] = append(out[ax], min(c, n-lo))
		}
	}
	return out, nil
}

// equalChunks reports whether two arrays are chunked alike.
func equalChunks(a, b [][]int) bool { return slices.EqualFunc(a, b, slices.Equal) }

// copyBox copies the box of the given shape at srcOff in src to dstOff in
// dst, one run along the last axis at a time. Both must have dst's dtype.
func copyBox(dst *Dense, dstOff []int, src *Dense, srcOff []int, box []int) {
	nd := len(box)
	if prod(box) == 0 {
		return
	}
	if nd == 0 {
		if dst.DType == Int64 {
			dst.I[0] = src.I[0]
		} else {
			dst.F[0] = src.F[0]
		}
		return
	}
	idx := make([]int, nd-1)
	run := box[nd-1]
	for {
		d, s := 0, 0
		for ax := 0; ax < nd; ax++ {
			i := 0
			if ax < nd-1 {
				i = idx[ax]
			}
			d = d*dst.Shape[ax] + dstOff[ax] + i
			s = s*src.Shape[ax] + srcOff[ax] + i
		}
		if dst.DType == Int64 {
			copy(dst.I[d:d+run], src.I[s:s+run])
		} else {
			copy(dst.F[d:d+run], src.F[s:s+run])
		}
		ax := nd - 2
		for ; ax >= 0; ax-- {
			if idx[ax]++; idx[ax] < box[ax] {
				break
			}
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}
