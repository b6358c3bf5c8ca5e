package array

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

// Reductions run as trees: a task per chunk reduces it to a partial result
// (a scalar for a full reduction), and partials are combined splitEvery at
// a time until one is left per output chunk, so no task holds more than a
// chunk and splitEvery small partials.
const splitEvery = 8

const (
	opReduceChunk   = "array-reduce-chunk"
	opReduceGen     = "array-reduce-gen"
	opReduceCombine = "array-reduce-combine"
	opReduceFinal   = "array-reduce-final"
)

func init() {
	registry.RegisterGPU(opReduceChunk, reduceChunkOp)
	registry.Register(opReduceGen, reduceGenOp)
	registry.Register(opReduceCombine, reduceCombineOp)
	registry.Register(opReduceFinal, reduceFinalOp)
}

// reduction describes one reduction once: the aggregation of the kernel's
// table it is (internal/kernel/agg.go: its name, and the type of its
// answer, which outType asks; argmin and argmax are Min and Max answering
// with the extreme's index), what its partials hold (its family), which
// extreme wins, and whether a variance ends as its root. Each family's
// chunk, merge and final steps are written once, in partial.go, over the
// array's dense chunks element by element or along an axis: the table's
// own steps take a group id per value, which a full reduction would pay
// for (a sum over a 1M-value chunk 1.9 ms through kernel.Partial against
// 0.8 ms here, a variance 9 against 3), while both merge variances by
// kernel.MergeMoments.
type reduction struct {
	fn     kernel.AggFunc
	family family
	less   bool // extremes: the smallest wins
	arg    bool // extremes: the answer is the extreme's index
	sqrt   bool // moments: the answer is the root of the variance
}

// family is what a reduction's partials hold.
type family uint8

const (
	sums     family = iota // a running sum in the input's type
	means                  // a float sum and the count
	moments                // the mean and M2 (Chan et al.'s parallel variance)
	extremes               // the extreme so far, and for arg ones its index
)

// reductions are the reductions, by the name tasks carry.
var reductions = map[string]reduction{
	"sum":    {fn: kernel.Sum, family: sums},
	"mean":   {fn: kernel.Mean, family: means},
	"var":    {fn: kernel.Var, family: moments},
	"std":    {fn: kernel.Std, family: moments, sqrt: true},
	"min":    {fn: kernel.Min, family: extremes, less: true},
	"max":    {fn: kernel.Max, family: extremes},
	"argmin": {fn: kernel.Min, family: extremes, less: true, arg: true},
	"argmax": {fn: kernel.Max, family: extremes, arg: true},
}

// outType is the answer's dtype over an array of dt: an index for the arg
// reductions, else what the kernel's table gives the aggregation.
func (r reduction) outType(dt DType) DType {
	in := arrow.DataType(arrow.PrimitiveTypes.Float64)
	if dt == Int64 {
		in = arrow.PrimitiveTypes.Int64
	}
	if r.arg || r.fn.ResultType(in).ID() == arrow.INT64 {
		return Int64
	}
	return Float64
}

// orderFree reports whether a full reduction folds its elements in any
// order (their positions do not matter).
func (r reduction) orderFree() bool { return r.family != extremes }

// reduceArgs are the arguments of every reduction task.
type reduceArgs struct {
	Kind  string   `json:"kind"` // sum mean var std min max argmin argmax
	Axis  int      `json:"axis"` // -1: all axes
	DType DType    `json:"dtype"`
	Ddof  int      `json:"ddof,omitempty"`
	Off   []int    `json:"off,omitempty"`   // the chunk's offset
	Shape []int    `json:"shape,omitempty"` // the chunk's shape
	Whole []int    `json:"whole,omitempty"` // the array's shape
	Gen   *genArgs `json:"gen,omitempty"`
}

// Sum adds the elements, along the axis given, or all of them.
func (a *Array) Sum(axis ...int) *Array { return a.reduce("sum", 0, axis) }

// Mean is the arithmetic mean, along the axis given, or of all elements.
func (a *Array) Mean(axis ...int) *Array { return a.reduce("mean", 0, axis) }

// Var is the population variance (NumPy's ddof=0); see VarDdof.
func (a *Array) Var(axis ...int) *Array { return a.reduce("var", 0, axis) }

// VarDdof is the variance with ddof delta degrees of freedom (1: sample).
func (a *Array) VarDdof(ddof int, axis ...int) *Array { return a.reduce("var", ddof, axis) }

// Std is the population standard deviation (ddof=0).
func (a *Array) Std(axis ...int) *Array { return a.reduce("std", 0, axis) }

// Min is the smallest element, along the axis given, or of all.
func (a *Array) Min(axis ...int) *Array { return a.reduce("min", 0, axis) }

// Max is the largest element, along the axis given, or of all.
func (a *Array) Max(axis ...int) *Array { return a.reduce("max", 0, axis) }

// ArgMin is the index of the smallest element (its first occurrence): along
// the axis given, or in the flattened array.
func (a *Array) ArgMin(axis ...int) *Array { return a.reduce("argmin", 0, axis) }

// ArgMax is the index of the largest element; see ArgMin.
func (a *Array) ArgMax(axis ...int) *Array { return a.reduce("argmax", 0, axis) }

func (a *Array) reduce(kind string, ddof int, axis []int) *Array {
	if a.err != nil {
		return a
	}
	ax := -1
	switch len(axis) {
	case 0:
	case 1:
		ax = axis[0]
		if ax < 0 {
			ax += a.NDim()
		}
		if ax < 0 || ax >= a.NDim() {
			return failed(fmt.Errorf("array: %s: axis %d out of range for %d dimensions", kind, axis[0], a.NDim()))
		}
	default:
		return failed(fmt.Errorf("array: %s: reduce over one axis or all, not %d", kind, len(axis)))
	}
	r := reductions[kind]
	if r.family != sums && a.Size() == 0 {
		return failed(fmt.Errorf("array: %s of an empty array", kind))
	}
	outDT := r.outType(a.dtype)
	var outShape []int
	var outChunks [][]int
	for i := range a.shape {
		if ax >= 0 && i != ax {
			outShape = append(outShape, a.shape[i])
			outChunks = append(outChunks, a.chunks[i])
		}
	}
	base := reduceArgs{Kind: kind, Axis: ax, DType: a.dtype, Ddof: ddof}
	tok := token("array-"+kind, mustJSON(base), a)
	out := &Array{shape: outShape, chunks: outChunks, dtype: outDT}
	out.n = &node{tok: tok, lower: func(l *lowering) []graph.Key {
		in := a.grid()
		outGrid := newGrid(outChunks)
		groups := make([][]graph.Key, outGrid.len())
		var inKeys []graph.Key
		if a.n.gen == nil || ax >= 0 || a.n.gen.Kind == "data" {
			inKeys = l.keys(a)
		}
		for i := 0; i < in.len(); i++ {
			off, shape := in.chunk(i)
			args := base
			args.Off, args.Shape, args.Whole = off, shape, a.shape
			k := graph.Part(tok+"-partial", i)
			if inKeys == nil {
				args.Gen = a.n.gen
				l.add(k, opReduceGen, mustJSON(args))
			} else {
				l.add(k, opReduceChunk, mustJSON(args), inKeys[i])
			}
			o := 0
			if ax >= 0 {
				p := in.pos(i)
				p = append(p[:ax:ax], p[ax+1:]...)
				o = outGrid.index(p)
			}
			groups[o] = append(groups[o], k)
		}
		cargs := mustJSON(reduceArgs{Kind: kind, Axis: ax, DType: a.dtype})
		fargs := mustJSON(base)
		keys := make([]graph.Key, len(groups))
		for o, g := range groups {
			for level := 0; len(g) > splitEvery; level++ {
				var next []graph.Key
				for lo := 0; lo < len(g); lo += splitEvery {
					k := graph.Part(fmt.Sprintf("%s-combine%d-%d", tok, level, o), lo/splitEvery)
					next = append(next, l.combine(k, opReduceCombine, cargs, g[lo:min(lo+splitEvery, len(g))]...))
				}
				g = next
			}
			keys[o] = l.combine(graph.Part(tok, o), opReduceFinal, fargs, g...)
		}
		return keys
	}}
	return out
}

func decodeArgs(name string, raw []byte) (*reduceArgs, error) {
	a := new(reduceArgs)
	if err := json.Unmarshal(raw, a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", name, err)
	}
	if _, ok := reductions[a.Kind]; !ok {
		return nil, fmt.Errorf("%s: unknown reduction %q", name, a.Kind)
	}
	return a, nil
}

func reduceChunkOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	a, err := decodeArgs(opReduceChunk, raw)
	if err != nil {
		return nil, err
	}
	d, ok := inputs[0].(*Dense)
	if !ok {
		return nil, fmt.Errorf("%s: input is a %T, not an array chunk", opReduceChunk, inputs[0])
	}
	if k := accelerator(tc); k != nil && a.Axis < 0 {
		if p, ok, err := gpuSum(k, reductions[a.Kind], d); ok || err != nil {
			return p, err
		}
	}
	if d.DType == Int64 {
		return chunkPartial(a, d.I), nil
	}
	return chunkPartial(a, d.F), nil
}

// accelerator returns the GPU kernels of a task that holds a GPU, or nil
// (see gpu.ForTask).
func accelerator(tc *registry.Context) gpu.Kernels { return gpu.ForTask(tc != nil && tc.GPU) }

// gpuSum is a chunk's full sum or mean on k; ok is false where k has no
// kernel for it (other reductions, the mean of integers).
func gpuSum(k gpu.Kernels, r reduction, d *Dense) (p *partial, ok bool, err error) {
	p = &partial{Shape: []int{}}
	switch {
	case d.DType == Int64 && r.family == sums:
		s, err := k.SumInt64(d.I)
		p.N, p.I = int64(len(d.I)), []int64{s}
		return p, err == nil, err
	case d.DType == Float64 && (r.family == sums || r.family == means):
		s, err := k.SumFloat64(d.F)
		p.N, p.F = int64(len(d.F)), []float64{s}
		return p, err == nil, err
	}
	return nil, false, nil
}

// reduceGenOp reduces a generated chunk over all axes, generating it a block
// at a time: the chunk never exists whole.
func reduceGenOp(_ *registry.Context, raw []byte, _ []any) (any, error) {
	a, err := decodeArgs(opReduceGen, raw)
	if err != nil {
		return nil, err
	}
	if a.Gen == nil || a.Gen.Kind == "data" || a.Axis >= 0 {
		return nil, fmt.Errorf("%s: only full reductions of generated arrays stream", opReduceGen)
	}
	g := a.Gen
	origin, whole := g.window(a.Off)
	if g.Kind == "random" && reductions[a.Kind].family == sums {
		var s float64
		rows(origin, a.Shape, whole, func(n int, at int64) { s += randomSum(g.Seed, at, n) })
		return &partial{Shape: []int{}, N: int64(prod(a.Shape)), F: []float64{s}}, nil
	}
	if g.DType == Int64 {
		return streamGen(a, func(b []int64, at int64) {
			for j := range b {
				if g.Kind == "arange" {
					b[j] = at + int64(j)
				} else {
					b[j] = int64(g.Value)
				}
			}
		}), nil
	}
	return streamGen(a, func(b []float64, at int64) {
		switch g.Kind {
		case "random":
			randomFill(b, g.Seed, at)
		case "arange":
			for j := range b {
				b[j] = float64(at + int64(j))
			}
		default:
			for j := range b {
				b[j] = g.Value
			}
		}
	}), nil
}

// streamGen folds a generated chunk into a partial a block at a time: fill
// writes the elements that start at a position of the generator's array,
// and the accumulator sees their positions in the array reduced (a slice
// of the generator's, whose argmin counts from its own origin).
func streamGen[T float64 | int64](a *reduceArgs, fill func(b []T, at int64)) *partial {
	origin, whole := a.Gen.window(a.Off)
	var starts []int64 // of each run, in the generator's array
	rows(origin, a.Shape, whole, func(_ int, at int64) { starts = append(starts, at) })
	acc := newAcc[T](reductions[a.Kind])
	var buf [2048]T
	run := 0
	rows(a.Off, a.Shape, a.Whole, func(n int, pos int64) {
		at := starts[run]
		run++
		for lo := 0; lo < n; lo += len(buf) {
			b := buf[:min(len(buf), n-lo)]
			fill(b, at+int64(lo))
			acc.feed(b, pos+int64(lo))
		}
	})
	return acc.partial()
}

func combineInputs(name string, r reduction, inputs []any) (*partial, error) {
	var out *partial
	for i, v := range inputs {
		p, ok := v.(*partial)
		if !ok {
			return nil, fmt.Errorf("%s: input %d is a %T, not a partial reduction", name, i, v)
		}
		if out == nil {
			out = clonePartial(p)
			continue
		}
		merge(r, out, p)
	}
	if out == nil {
		return nil, fmt.Errorf("%s: no inputs", name)
	}
	return out, nil
}

func reduceCombineOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	a, err := decodeArgs(opReduceCombine, raw)
	if err != nil {
		return nil, err
	}
	return combineInputs(opReduceCombine, reductions[a.Kind], inputs)
}

func reduceFinalOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	a, err := decodeArgs(opReduceFinal, raw)
	if err != nil {
		return nil, err
	}
	r := reductions[a.Kind] // decodeArgs checked it is one
	p, err := combineInputs(opReduceFinal, r, inputs)
	if err != nil {
		return nil, err
	}
	out := &Dense{Shape: p.Shape, DType: r.outType(a.DType)}
	n := float64(p.N)
	switch {
	case r.arg:
		out.I = p.X
	case r.family == sums || r.family == extremes:
		out.F, out.I = p.F, p.I
		if out.DType == Float64 && out.F == nil {
			out.F = make([]float64, prod(p.Shape))
		}
		if out.DType == Int64 && out.I == nil {
			out.I = make([]int64, prod(p.Shape))
		}
	case r.family == means:
		out.F = p.F
		for i := range out.F {
			out.F[i] /= n
		}
	case r.family == moments:
		out.F = p.M
		for i := range out.F {
			out.F[i] /= n - float64(a.Ddof)
			if r.sqrt {
				out.F[i] = math.Sqrt(out.F[i])
			}
		}
	}
	return out, nil
}
