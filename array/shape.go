package array

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
)

const (
	opAssemble  = "array-assemble"
	opTranspose = "array-transpose"
)

func init() {
	registry.Register(opAssemble, assembleOp)
	registry.Register(opTranspose, transposeOp)
}

// box is a block of an array: where it starts and its shape.
type box struct {
	Off   []int `json:"off"`
	Shape []int `json:"shape"`
}

// assembleArgs make the box Out (in the coordinates of the source array)
// from the source chunks In, one per input.
type assembleArgs struct {
	DType DType `json:"dtype"`
	Out   box   `json:"out"`
	In    []box `json:"in"`
}

// Rechunk is the same array cut into chunks of the given shape (see Zeros).
// Each new chunk is copied from the old chunks it overlaps.
func (a *Array) Rechunk(chunks []int) *Array {
	if a.err != nil {
		return a
	}
	cs, err := normChunks(a.shape, chunks)
	if err != nil {
		return failed(fmt.Errorf("array: Rechunk: %w", err))
	}
	if equalChunks(cs, a.chunks) {
		return a
	}
	return a.rechunkTo(cs)
}

func (a *Array) rechunkTo(cs [][]int) *Array {
	return a.blocks("array-rechunk", make([]int, len(a.shape)), a.shape, cs)
}

// Slice is the part of the array from start (inclusive) to stop (exclusive)
// along each axis, as a[start0:stop0, start1:stop1, ...]; missing axes are
// taken whole. Bounds are clipped to the array and negative ones count from
// the end, as in NumPy. Each chunk of the result is cut from one chunk of a.
func (a *Array) Slice(start, stop []int) *Array {
	if a.err != nil {
		return a
	}
	if len(start) > a.NDim() || len(stop) > a.NDim() {
		return failed(fmt.Errorf("array: Slice: %d and %d bounds for %d dimensions", len(start), len(stop), a.NDim()))
	}
	lo, shape := make([]int, a.NDim()), make([]int, a.NDim())
	cs := make([][]int, a.NDim())
	g := a.grid()
	for ax, n := range a.shape {
		s, e := 0, n
		if ax < len(start) {
			s = clip(start[ax], n)
		}
		if ax < len(stop) {
			e = clip(stop[ax], n)
		}
		e = max(e, s)
		lo[ax], shape[ax] = s, e-s
		for i := range a.chunks[ax] {
			cl, ch := max(s, g.offsets[ax][i]), min(e, g.offsets[ax][i+1])
			if ch > cl {
				cs[ax] = append(cs[ax], ch-cl)
			}
		}
		if cs[ax] == nil {
			cs[ax] = []int{0}
		}
	}
	if gen := a.n.gen; gen != nil && gen.Kind != "data" {
		// A slice of a generated array is generated: only its elements
		// are ever made.
		return generatedIn(gen.sliced(lo, shape), cs)
	}
	return a.blocks("array-slice", lo, shape, cs)
}

func clip(i, n int) int {
	if i < 0 {
		i += n
	}
	return min(max(i, 0), n)
}

// blocks is the box of a at lo with the given shape, cut into chunks cs:
// each new chunk is assembled from the chunks of a it overlaps.
func (a *Array) blocks(prefix string, lo, shape []int, cs [][]int) *Array {
	args := mustJSON(struct {
		Lo, Shape []int
		C         [][]int
	}{lo, shape, cs})
	tok := token(prefix, args, a)
	out := &Array{shape: append([]int{}, shape...), chunks: cs, dtype: a.dtype}
	out.n = &node{tok: tok, lower: func(l *lowering) []graph.Key {
		in := l.keys(a)
		src, dst := a.grid(), newGrid(cs)
		keys := make([]graph.Key, dst.len())
		for i := range keys {
			off, cshape := dst.chunk(i)
			for ax := range off {
				off[ax] += lo[ax]
			}
			aa := assembleArgs{DType: a.dtype, Out: box{Off: off, Shape: cshape}}
			var inputs []graph.Key
			// The source chunks overlapping the box, along each axis.
			ranges := make([][2]int, len(off))
			empty := prod(cshape) == 0
			for ax := range off {
				o := src.offsets[ax]
				first := sort.SearchInts(o, off[ax]+1) - 1
				last := sort.SearchInts(o, off[ax]+cshape[ax]) - 1
				ranges[ax] = [2]int{max(first, 0), max(last, first, 0)}
			}
			if !empty {
				forEachPos(ranges, func(p []int) {
					j := src.index(p)
					so, ss := src.chunk(j)
					aa.In = append(aa.In, box{Off: so, Shape: ss})
					inputs = append(inputs, in[j])
				})
			}
			keys[i] = l.add(graph.Part(tok, i), opAssemble, mustJSON(aa), inputs...)
		}
		return keys
	}}
	return out
}

// forEachPos calls fn for each grid position within the inclusive ranges.
func forEachPos(ranges [][2]int, fn func(p []int)) {
	p := make([]int, len(ranges))
	for ax, r := range ranges {
		p[ax] = r[0]
	}
	for {
		fn(append([]int{}, p...))
		ax := len(p) - 1
		for ; ax >= 0; ax-- {
			if p[ax]++; p[ax] <= ranges[ax][1] {
				break
			}
			p[ax] = ranges[ax][0]
		}
		if ax < 0 {
			return
		}
	}
}

func assembleOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a assembleArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opAssemble, err)
	}
	out := newDense(a.DType, a.Out.Shape)
	for i, v := range inputs {
		d, ok := v.(*Dense)
		if !ok {
			return nil, fmt.Errorf("%s: input %d is a %T, not an array chunk", opAssemble, i, v)
		}
		in := a.In[i]
		nd := len(in.Off)
		dstOff, srcOff, shape := make([]int, nd), make([]int, nd), make([]int, nd)
		for ax := 0; ax < nd; ax++ {
			lo := max(in.Off[ax], a.Out.Off[ax])
			hi := min(in.Off[ax]+in.Shape[ax], a.Out.Off[ax]+a.Out.Shape[ax])
			dstOff[ax], srcOff[ax], shape[ax] = lo-a.Out.Off[ax], lo-in.Off[ax], max(hi-lo, 0)
		}
		copyBox(out, dstOff, d, srcOff, shape)
	}
	return out, nil
}

// Transpose permutes the axes: axis i of the result is axis axes[i] of a.
// With no axes given it reverses them (a matrix's transpose).
func (a *Array) Transpose(axes ...int) *Array {
	if a.err != nil {
		return a
	}
	nd := a.NDim()
	if len(axes) == 0 {
		for i := nd - 1; i >= 0; i-- {
			axes = append(axes, i)
		}
	}
	if len(axes) != nd {
		return failed(fmt.Errorf("array: Transpose: %d axes for %d dimensions", len(axes), nd))
	}
	seen := make([]bool, nd)
	shape, cs := make([]int, nd), make([][]int, nd)
	for i, ax := range axes {
		if ax < 0 || ax >= nd || seen[ax] {
			return failed(fmt.Errorf("array: Transpose: axes %v are not a permutation of %d axes", axes, nd))
		}
		seen[ax] = true
		shape[i], cs[i] = a.shape[ax], a.chunks[ax]
	}
	args := mustJSON(axes)
	tok := token("array-transpose", args, a)
	out := &Array{shape: shape, chunks: cs, dtype: a.dtype}
	out.n = &node{tok: tok, lower: func(l *lowering) []graph.Key {
		in := l.keys(a)
		src, dst := a.grid(), newGrid(cs)
		keys := make([]graph.Key, dst.len())
		for i := range keys {
			p := dst.pos(i)
			q := make([]int, nd)
			for j, ax := range axes {
				q[ax] = p[j]
			}
			keys[i] = l.add(graph.Part(tok, i), opTranspose, args, in[src.index(q)])
		}
		return keys
	}}
	return out
}

func transposeOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var axes []int
	if err := json.Unmarshal(raw, &axes); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opTranspose, err)
	}
	d, ok := inputs[0].(*Dense)
	if !ok {
		return nil, fmt.Errorf("%s: input is a %T, not an array chunk", opTranspose, inputs[0])
	}
	nd := len(axes)
	shape, stride := make([]int, nd), make([]int, nd)
	inStride := make([]int, nd)
	for ax, s := 1, nd-1; s >= 0; s-- {
		inStride[s] = ax
		ax *= d.Shape[s]
	}
	for i, ax := range axes {
		shape[i], stride[i] = d.Shape[ax], inStride[ax]
	}
	out := newDense(d.DType, shape)
	n := out.Len()
	if n == 0 {
		return out, nil
	}
	idx := make([]int, nd)
	src := 0
	for o := 0; o < n; o++ {
		if d.DType == Int64 {
			out.I[o] = d.I[src]
		} else {
			out.F[o] = d.F[src]
		}
		for ax := nd - 1; ax >= 0; ax-- {
			idx[ax]++
			src += stride[ax]
			if idx[ax] < shape[ax] {
				break
			}
			src -= stride[ax] * shape[ax]
			idx[ax] = 0
		}
	}
	return out, nil
}
