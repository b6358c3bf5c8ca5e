package array

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/graph"
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
	if kind != "sum" && a.Size() == 0 {
		return failed(fmt.Errorf("array: %s of an empty array", kind))
	}
	outDT := a.dtype
	switch kind {
	case "mean", "var", "std":
		outDT = Float64
	case "argmin", "argmax":
		outDT = Int64
	}
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

// partial is a reduction's result for part of the array: per output
// element, a running sum, extreme, or mean with M2 (Chan et al.'s parallel
// variance), and for arg reductions the index of the extreme.
type partial struct {
	Shape []int
	N     int64     // elements folded into each output element
	F     []float64 // float sums, extremes; means (mean, var)
	I     []int64   // int sums and extremes
	X     []int64   // arg reductions: index of the extreme
	M     []float64 // var: sum of squared deviations from the mean
}

func decodeArgs(name string, raw []byte) (*reduceArgs, error) {
	a := new(reduceArgs)
	if err := json.Unmarshal(raw, a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", name, err)
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
		if p, ok, err := gpuSum(k, a.Kind, d); ok || err != nil {
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
func gpuSum(k gpu.Kernels, kind string, d *Dense) (p *partial, ok bool, err error) {
	p = &partial{Shape: []int{}}
	switch {
	case d.DType == Int64 && kind == "sum":
		s, err := k.SumInt64(d.I)
		p.N, p.I = int64(len(d.I)), []int64{s}
		return p, err == nil, err
	case d.DType == Float64 && (kind == "sum" || kind == "mean"):
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
	if g.Kind == "random" && a.Kind == "sum" {
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
	acc := newAcc[T](a.Kind)
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

// chunkPartial reduces one chunk's data.
func chunkPartial[T float64 | int64](a *reduceArgs, data []T) *partial {
	if a.Axis < 0 {
		acc := newAcc[T](a.Kind)
		pos := 0
		if a.Kind == "sum" || a.Kind == "mean" || a.Kind == "var" || a.Kind == "std" {
			acc.feed(data, 0) // order and index do not matter
		} else {
			rows(a.Off, a.Shape, a.Whole, func(n int, g int64) {
				acc.feed(data[pos:pos+n], g)
				pos += n
			})
		}
		return acc.partial()
	}
	ax := a.Axis
	outer, n, inner := prod(a.Shape[:ax]), a.Shape[ax], prod(a.Shape[ax+1:])
	shape := append(append([]int{}, a.Shape[:ax]...), a.Shape[ax+1:]...)
	p := &partial{Shape: shape, N: int64(n)}
	size := outer * inner
	isInt := isInts(data)
	switch a.Kind {
	case "sum":
		if isInt {
			p.I = make([]int64, size)
			for o := 0; o < outer; o++ {
				for k := 0; k < n; k++ {
					row := data[(o*n+k)*inner : (o*n+k+1)*inner]
					dst := p.I[o*inner : (o+1)*inner]
					for i, v := range row {
						dst[i] += int64(v)
					}
				}
			}
		} else {
			p.F = make([]float64, size)
			for o := 0; o < outer; o++ {
				for k := 0; k < n; k++ {
					row := data[(o*n+k)*inner : (o*n+k+1)*inner]
					dst := p.F[o*inner : (o+1)*inner]
					for i, v := range row {
						dst[i] += float64(v)
					}
				}
			}
		}
	case "mean", "var", "std":
		p.F = make([]float64, size)
		for o := 0; o < outer; o++ {
			dst := p.F[o*inner : (o+1)*inner]
			for k := 0; k < n; k++ {
				for i, v := range data[(o*n+k)*inner : (o*n+k+1)*inner] {
					dst[i] += float64(v)
				}
			}
			if a.Kind == "mean" {
				continue
			}
			for i := range dst {
				dst[i] /= float64(n)
			}
		}
		if a.Kind != "mean" {
			p.M = make([]float64, size)
			for o := 0; o < outer; o++ {
				mean, m := p.F[o*inner:(o+1)*inner], p.M[o*inner:(o+1)*inner]
				for k := 0; k < n; k++ {
					for i, v := range data[(o*n+k)*inner : (o*n+k+1)*inner] {
						d := float64(v) - mean[i]
						m[i] += d * d
					}
				}
			}
		}
	default: // min max argmin argmax
		less := a.Kind == "min" || a.Kind == "argmin"
		best := make([]T, size)
		var x []int64
		if a.Kind == "argmin" || a.Kind == "argmax" {
			x = make([]int64, size)
		}
		for o := 0; o < outer; o++ {
			copy(best[o*inner:(o+1)*inner], data[o*n*inner:(o*n+1)*inner])
			if x != nil {
				for i := range x[o*inner : (o+1)*inner] {
					x[o*inner+i] = int64(a.Off[ax])
				}
			}
			for k := 1; k < n; k++ {
				for i, v := range data[(o*n+k)*inner : (o*n+k+1)*inner] {
					b := &best[o*inner+i]
					if less && v < *b || !less && v > *b {
						*b = v
						if x != nil {
							x[o*inner+i] = int64(a.Off[ax] + k)
						}
					}
				}
			}
		}
		p.X = x
		switch b := any(best).(type) {
		case []float64:
			p.F = b
		case []int64:
			p.I = b
		}
	}
	return p
}

func isInts[T float64 | int64](data []T) bool {
	_, ok := any(data).([]int64)
	return ok
}

// acc folds runs of elements into a full reduction.
type acc[T float64 | int64] struct {
	kind string
	n    int64
	sumF float64
	sumI int64
	best T
	x    int64
	mean float64
	m2   float64
}

func newAcc[T float64 | int64](kind string) *acc[T] { return &acc[T]{kind: kind} }

// feed folds in vals, whose first element has flat index g in the array.
func (c *acc[T]) feed(vals []T, g int64) {
	if len(vals) == 0 {
		return
	}
	switch c.kind {
	case "sum", "mean":
		if iv, ok := any(vals).([]int64); ok && c.kind == "sum" {
			for _, v := range iv {
				c.sumI += v
			}
		} else {
			c.sumF += sum4(vals)
		}
	case "var", "std":
		nb := float64(len(vals))
		mb := sum4(vals) / nb
		var m2 float64
		for _, v := range vals {
			d := float64(v) - mb
			m2 += d * d
		}
		c.mean, c.m2 = chan3(float64(c.n), c.mean, c.m2, nb, mb, m2)
	default:
		less := c.kind == "min" || c.kind == "argmin"
		start := 0
		if c.n == 0 {
			c.best, c.x, start = vals[0], g, 1
		}
		for i := start; i < len(vals); i++ {
			if v := vals[i]; less && v < c.best || !less && v > c.best {
				c.best, c.x = v, g+int64(i)
			}
		}
	}
	c.n += int64(len(vals))
}

func (c *acc[T]) partial() *partial {
	p := &partial{Shape: []int{}, N: c.n}
	isInt := false
	var zero T
	if _, ok := any(zero).(int64); ok {
		isInt = true
	}
	switch c.kind {
	case "sum":
		if isInt {
			p.I = []int64{c.sumI}
		} else {
			p.F = []float64{c.sumF}
		}
	case "mean":
		p.F = []float64{c.sumF}
	case "var", "std":
		p.F, p.M = []float64{c.mean}, []float64{c.m2}
	default:
		if isInt {
			p.I = []int64{int64(c.best)}
		} else {
			p.F = []float64{float64(c.best)}
		}
		if c.kind == "argmin" || c.kind == "argmax" {
			p.X = []int64{c.x}
		}
	}
	return p
}

// chan3 merges two (count, mean, M2) summaries.
func chan3(na, ma, m2a, nb, mb, m2b float64) (mean, m2 float64) {
	if na == 0 {
		return mb, m2b
	}
	n := na + nb
	d := mb - ma
	return ma + d*nb/n, m2a + m2b + d*d*na*nb/n
}

// sum4 adds with four accumulators, which the CPU runs in parallel.
func sum4[T float64 | int64](v []T) float64 {
	var a0, a1, a2, a3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		a0 += float64(v[i])
		a1 += float64(v[i+1])
		a2 += float64(v[i+2])
		a3 += float64(v[i+3])
	}
	for ; i < len(v); i++ {
		a0 += float64(v[i])
	}
	return (a0 + a1) + (a2 + a3)
}

// merge folds src into dst, both partials of the same reduction and shape.
func merge(kind string, dst, src *partial) {
	if src.N == 0 {
		return
	}
	if dst.N == 0 {
		*dst = *clonePartial(src)
		return
	}
	switch kind {
	case "sum", "mean":
		for i, v := range src.F {
			dst.F[i] += v
		}
		for i, v := range src.I {
			dst.I[i] += v
		}
	case "var", "std":
		for i := range dst.F {
			dst.F[i], dst.M[i] = chan3(float64(dst.N), dst.F[i], dst.M[i], float64(src.N), src.F[i], src.M[i])
		}
	default:
		less := kind == "min" || kind == "argmin"
		for i := range src.F {
			v, b := src.F[i], dst.F[i]
			if better(less, v, b, src.X, dst.X, i) {
				dst.F[i] = v
				if dst.X != nil {
					dst.X[i] = src.X[i]
				}
			}
		}
		for i := range src.I {
			v, b := src.I[i], dst.I[i]
			if better(less, v, b, src.X, dst.X, i) {
				dst.I[i] = v
				if dst.X != nil {
					dst.X[i] = src.X[i]
				}
			}
		}
	}
	dst.N += src.N
}

// better reports whether v beats the best b so far; between equal values
// the first index wins.
func better[T float64 | int64](less bool, v, b T, vx, bx []int64, i int) bool {
	if v == b {
		return vx != nil && vx[i] < bx[i]
	}
	return less && v < b || !less && v > b
}

func clonePartial(p *partial) *partial {
	return &partial{Shape: append([]int{}, p.Shape...), N: p.N, F: cloneOrNil(p.F), I: cloneOrNil(p.I),
		X: cloneOrNil(p.X), M: cloneOrNil(p.M)}
}

func cloneOrNil[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append([]T{}, s...)
}

func combineInputs(name, kind string, inputs []any) (*partial, error) {
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
		merge(kind, out, p)
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
	return combineInputs(opReduceCombine, a.Kind, inputs)
}

func reduceFinalOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	a, err := decodeArgs(opReduceFinal, raw)
	if err != nil {
		return nil, err
	}
	p, err := combineInputs(opReduceFinal, a.Kind, inputs)
	if err != nil {
		return nil, err
	}
	out := &Dense{Shape: p.Shape, DType: Float64}
	n := float64(p.N)
	switch a.Kind {
	case "sum", "min", "max":
		out.DType, out.F, out.I = a.DType, p.F, p.I
		if out.DType == Float64 && out.F == nil {
			out.F = make([]float64, prod(p.Shape))
		}
		if out.DType == Int64 && out.I == nil {
			out.I = make([]int64, prod(p.Shape))
		}
	case "mean":
		out.F = p.F
		for i := range out.F {
			out.F[i] /= n
		}
	case "var", "std":
		out.F = p.M
		for i := range out.F {
			out.F[i] /= n - float64(a.Ddof)
			if a.Kind == "std" {
				out.F[i] = math.Sqrt(out.F[i])
			}
		}
	case "argmin", "argmax":
		out.DType, out.I = Int64, p.X
	default:
		return nil, fmt.Errorf("%s: unknown reduction %q", opReduceFinal, a.Kind)
	}
	return out, nil
}

// partialCodec writes a partial as its shape, count and slices.
type partialCodec struct{}

func (partialCodec) Name() string { return "array-partial" }

func (partialCodec) Encode(w io.Writer, v any) error {
	p := v.(*partial)
	shape := make([]int64, len(p.Shape))
	for i, s := range p.Shape {
		shape[i] = int64(s)
	}
	for _, s := range []struct {
		f []float64
		i []int64
	}{{nil, append(shape, p.N)}, {p.F, nil}, {nil, p.I}, {nil, p.X}, {p.M, nil}} {
		if err := writeSlice(w, s.f, s.i); err != nil {
			return fmt.Errorf("encode partial reduction: %w", err)
		}
	}
	return nil
}

func (partialCodec) Decode(r io.Reader) (any, error) {
	var parts [5]struct {
		f []float64
		i []int64
	}
	for k := range parts {
		f, i, err := readSlice(r)
		if err != nil {
			return nil, fmt.Errorf("decode partial reduction: %w", err)
		}
		parts[k].f, parts[k].i = f, i
	}
	hdr := parts[0].i
	if len(hdr) == 0 {
		return nil, fmt.Errorf("decode partial reduction: no header")
	}
	p := &partial{Shape: make([]int, len(hdr)-1), N: hdr[len(hdr)-1], F: parts[1].f, I: parts[2].i, X: parts[3].i, M: parts[4].f}
	for i := range p.Shape {
		p.Shape[i] = int(hdr[i])
	}
	return p, nil
}
