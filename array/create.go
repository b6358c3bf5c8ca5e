package array

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
)

// genArgs describes a generated array: every element is a function of its
// row-major index in the whole array, so any chunk can be made on its own
// and chunkings do not change the values.
type genArgs struct {
	Kind  string  `json:"kind"` // "full", "random", "arange" or "data"
	DType DType   `json:"dtype"`
	Shape []int   `json:"shape"` // the whole array's
	Value float64 `json:"value,omitempty"`
	Seed  uint64  `json:"seed,omitempty"`
	// A slice of a generated array is generated too: Base is the shape of
	// the array the generator made (nil: Shape), and Lo where this one
	// starts in it (nil: at the origin).
	Base []int `json:"base,omitempty"`
	Lo   []int `json:"lo,omitempty"`
}

// window is where the chunk at off lies in the generator's array, and that
// array's shape: element positions there decide the values.
func (g *genArgs) window(off []int) (origin, whole []int) {
	if g.Base == nil {
		return off, g.Shape
	}
	origin = make([]int, len(off))
	for i := range off {
		origin[i] = off[i] + g.Lo[i]
	}
	return origin, g.Base
}

// sliced is the generator of the box of g's array at lo with the given shape.
func (g genArgs) sliced(lo, shape []int) genArgs {
	origin, whole := g.window(lo)
	g.Base, g.Lo, g.Shape = slices.Clone(whole), origin, slices.Clone(shape)
	return g
}

// chunkArgs are a source task's arguments; a "data" chunk's elements follow
// them in the task's Args, after a zero byte.
type chunkArgs struct {
	Gen   genArgs `json:"gen"`
	Off   []int   `json:"off"`
	Shape []int   `json:"shape"`
}

const opSource = "array-source"

func init() { registry.Register(opSource, sourceOp) }

// generated returns the array whose chunks gen makes.
func generated(gen genArgs, chunk []int) *Array {
	chunks, err := normChunks(gen.Shape, chunk)
	if err != nil {
		return failed(fmt.Errorf("array: %s: %w", gen.Kind, err))
	}
	return generatedIn(gen, chunks)
}

// generatedIn is the array gen makes, in chunks of the sizes given.
func generatedIn(gen genArgs, chunks [][]int) *Array {
	a := &Array{shape: append([]int{}, gen.Shape...), chunks: chunks, dtype: gen.DType}
	tok := graph.Name("array-"+gen.Kind, opSource, mustJSON(struct {
		G genArgs
		C [][]int
	}{gen, chunks}))
	a.n = &node{tok: tok, gen: &gen, lower: func(l *lowering) []graph.Key {
		gr := a.grid()
		keys := make([]graph.Key, gr.len())
		for i := range keys {
			off, shape := gr.chunk(i)
			keys[i] = l.add(graph.Part(tok, i), opSource, mustJSON(chunkArgs{Gen: gen, Off: off, Shape: shape}))
		}
		return keys
	}}
	if len(gen.Shape) == 0 && gen.Kind == "full" {
		v := gen.Value
		a.n.lit = &v
	}
	return a
}

// Zeros is an array of zeros of the given shape, in chunks of the given
// shape (the last chunk along an axis is shorter when it does not divide;
// a chunk length of 0 takes the whole axis).
func Zeros(dt DType, shape, chunks []int) *Array { return Full(dt, 0, shape, chunks) }

// Ones is an array of ones; see Zeros for chunks.
func Ones(dt DType, shape, chunks []int) *Array { return Full(dt, 1, shape, chunks) }

// Full is an array filled with v (truncated for Int64); see Zeros.
func Full(dt DType, v float64, shape, chunks []int) *Array {
	return generated(genArgs{Kind: "full", DType: dt, Shape: shape, Value: v}, chunks)
}

// Scalar is a 0-d float64 array: in arithmetic with an array, it applies to
// every element.
func Scalar(v float64) *Array { return Full(Float64, v, nil, nil) }

// IntScalar is a 0-d int64 array; see Scalar.
func IntScalar(v int64) *Array { return Full(Int64, float64(v), nil, nil) }

// Arange is the int64 array 0, 1, ..., n-1 in chunks of chunk elements.
func Arange(n, chunk int) *Array {
	return generated(genArgs{Kind: "arange", DType: Int64, Shape: []int{n}}, []int{chunk})
}

// Random is an array of float64s uniform in [0, 1) from seed. Each element
// is a function of seed and its index alone, so a chunk is generated only by
// the task that needs it, and the values do not depend on the chunking.
func Random(seed uint64, shape, chunks []int) *Array {
	return generated(genArgs{Kind: "random", DType: Float64, Shape: shape, Seed: seed}, chunks)
}

// FromSlice is the array of the given shape whose row-major elements are
// data, cut into chunks (see Zeros). Each chunk's data travels in its task.
func FromSlice[T float64 | int64](data []T, shape, chunks []int) *Array {
	if len(data) != prod(shape) {
		return failed(fmt.Errorf("array: FromSlice: %d elements for shape %v", len(data), shape))
	}
	dt := Float64
	var whole *Dense
	switch d := any(data).(type) {
	case []float64:
		whole = &Dense{Shape: shape, DType: Float64, F: d}
	case []int64:
		dt = Int64
		whole = &Dense{Shape: shape, DType: Int64, I: d}
	}
	cs, err := normChunks(shape, chunks)
	if err != nil {
		return failed(fmt.Errorf("array: FromSlice: %w", err))
	}
	a := &Array{shape: append([]int{}, shape...), chunks: cs, dtype: dt}
	gr := a.grid()
	args := make([][]byte, gr.len())
	names := make([]string, len(args))
	for i := range args {
		off, cshape := gr.chunk(i)
		part := newDense(dt, cshape)
		copyBox(part, make([]int, len(cshape)), whole, off, cshape)
		var b bytes.Buffer
		b.Write(mustJSON(chunkArgs{Gen: genArgs{Kind: "data", DType: dt, Shape: shape}, Off: off, Shape: cshape}))
		b.WriteByte(0)
		if err := writeData(&b, part.F, part.I); err != nil {
			return failed(fmt.Errorf("array: FromSlice: %w", err))
		}
		args[i] = b.Bytes()
		names[i] = string(args[i])
	}
	tok := graph.Name("array-from-slice", opSource, nil, names...)
	a.n = &node{tok: tok, lower: func(l *lowering) []graph.Key {
		keys := make([]graph.Key, len(args))
		for i := range keys {
			keys[i] = l.add(graph.Part(tok, i), opSource, args[i])
		}
		return keys
	}}
	return a
}

func sourceOp(_ *registry.Context, raw []byte, _ []any) (any, error) {
	var data []byte
	if i := bytes.IndexByte(raw, 0); i >= 0 {
		raw, data = raw[:i], raw[i+1:]
	}
	var a chunkArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opSource, err)
	}
	out := newDense(a.Gen.DType, a.Shape)
	if a.Gen.Kind == "data" {
		if err := readData(bytes.NewReader(data), out.F, out.I); err != nil {
			return nil, fmt.Errorf("%s: read data: %w", opSource, err)
		}
		return out, nil
	}
	if err := fill(&a.Gen, a.Off, a.Shape, out); err != nil {
		return nil, fmt.Errorf("%s: %w", opSource, err)
	}
	return out, nil
}

// fill writes the generated chunk at off into out.
func fill(g *genArgs, off, shape []int, out *Dense) error {
	switch g.Kind {
	case "full":
		if out.DType == Int64 {
			v := int64(g.Value)
			for i := range out.I {
				out.I[i] = v
			}
		} else {
			for i := range out.F {
				out.F[i] = g.Value
			}
		}
	case "arange", "random":
		pos := 0
		origin, whole := g.window(off)
		rows(origin, shape, whole, func(n int, gstart int64) {
			if out.DType == Int64 {
				for j := range out.I[pos : pos+n] {
					out.I[pos+j] = gstart + int64(j)
				}
			} else {
				randomFill(out.F[pos:pos+n], g.Seed, gstart)
			}
			pos += n
		})
	default:
		return fmt.Errorf("unknown generator %q", g.Kind)
	}
	return nil
}

// rows calls fn for each run along the last axis of the chunk at off, in
// order, with its length and the row-major index in the whole array of its
// first element. A 0-d chunk is one run of one element.
func rows(off, shape, whole []int, fn func(n int, gstart int64)) {
	nd := len(shape)
	if prod(shape) == 0 {
		return
	}
	if nd == 0 {
		fn(1, 0)
		return
	}
	idx := make([]int, nd-1)
	for {
		var g int64
		for ax := 0; ax < nd; ax++ {
			i := off[ax]
			if ax < nd-1 {
				i += idx[ax]
			}
			g = g*int64(whole[ax]) + int64(i)
		}
		fn(shape[nd-1], g)
		ax := nd - 2
		for ; ax >= 0; ax-- {
			if idx[ax]++; idx[ax] < shape[ax] {
				break
			}
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}

// The generator is SplitMix64 used as a counter-based generator: element g
// of seed s is mix(key(s) + (g+1)·gamma). Elements are independent of each
// other, so the loop pipelines, and a chunk starts anywhere at no cost.
const gamma = 0x9e3779b97f4a7c15

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func seedKey(seed uint64) uint64 { return mix64(seed + gamma) }

// toUnit maps 53 random bits to [0, 1).
func toUnit(x uint64) float64 { return float64(int64(x>>11)) * (1.0 / (1 << 53)) }

// randomFill writes elements gstart, gstart+1, ... of seed's array to dst.
func randomFill(dst []float64, seed uint64, gstart int64) {
	s := seedKey(seed) + uint64(gstart+1)*gamma
	for i := range dst {
		dst[i] = toUnit(mix64(s))
		s += gamma
	}
}

// randomSum returns the sum of n elements of seed's array from gstart,
// without storing them: the fast path of reducing a random array.
func randomSum(seed uint64, gstart int64, n int) float64 {
	s := seedKey(seed) + uint64(gstart+1)*gamma
	var a0, a1, a2, a3 float64
	g1 := uint64(gamma)
	g2, g3, g4 := 2*g1, 3*g1, 4*g1
	i := 0
	for ; i+4 <= n; i += 4 {
		a0 += toUnit(mix64(s))
		a1 += toUnit(mix64(s + g1))
		a2 += toUnit(mix64(s + g2))
		a3 += toUnit(mix64(s + g3))
		s += g4
	}
	for ; i < n; i++ {
		a0 += toUnit(mix64(s))
		s += gamma
	}
	return (a0 + a1) + (a2 + a3)
}
