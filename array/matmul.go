package array

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
)

const opMatMul = "array-matmul"

func init() { registry.Register(opMatMul, matmulOp) }

// MatMul is the matrix product of two 2-d arrays, blocked: output chunk
// (i, j) is one task over row i of a's chunks and column j of b's. b's row
// chunks are matched to a's column chunks. int64 times int64 stays int64.
func (a *Array) MatMul(b *Array) *Array {
	if a.err != nil {
		return a
	}
	if b.err != nil {
		return b
	}
	if a.NDim() != 2 || b.NDim() != 2 {
		return failed(fmt.Errorf("array: MatMul needs 2-d arrays, not %d-d and %d-d", a.NDim(), b.NDim()))
	}
	if a.shape[1] != b.shape[0] {
		return failed(fmt.Errorf("array: MatMul: shapes %v and %v do not align", a.shape, b.shape))
	}
	if !slices.Equal(a.chunks[1], b.chunks[0]) {
		b = b.rechunkTo([][]int{a.chunks[1], b.chunks[1]})
	}
	dt := Float64
	if a.dtype == Int64 && b.dtype == Int64 {
		dt = Int64
	}
	args := mustJSON(dt)
	tok := token("array-matmul", args, a, b)
	cs := [][]int{a.chunks[0], b.chunks[1]}
	out := &Array{shape: []int{a.shape[0], b.shape[1]}, chunks: cs, dtype: dt}
	out.n = &node{tok: tok, lower: func(l *lowering) []graph.Key {
		ak, bk := l.keys(a), l.keys(b)
		ni, nk, nj := len(a.chunks[0]), len(a.chunks[1]), len(b.chunks[1])
		keys := make([]graph.Key, ni*nj)
		for i := 0; i < ni; i++ {
			for j := 0; j < nj; j++ {
				inputs := make([]graph.Key, 0, 2*nk)
				for k := 0; k < nk; k++ {
					inputs = append(inputs, ak[i*nk+k], bk[k*nj+j])
				}
				keys[i*nj+j] = l.add(graph.Part(tok, i*nj+j), opMatMul, args, inputs...)
			}
		}
		return keys
	}}
	return out
}

// matmulOp sums the products of its inputs, pairs of a block of a and a
// block of b.
func matmulOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var dt DType
	if err := json.Unmarshal(raw, &dt); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opMatMul, err)
	}
	var out *Dense
	for p := 0; p+1 < len(inputs); p += 2 {
		x, ok1 := inputs[p].(*Dense)
		y, ok2 := inputs[p+1].(*Dense)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s: inputs are a %T and a %T, not array chunks", opMatMul, inputs[p], inputs[p+1])
		}
		m, k, n := x.Shape[0], x.Shape[1], y.Shape[1]
		if out == nil {
			out = newDense(dt, []int{m, n})
		}
		if dt == Int64 {
			for i := 0; i < m; i++ {
				row := out.I[i*n : (i+1)*n]
				for l := 0; l < k; l++ {
					v := x.I[i*k+l]
					for j, w := range y.I[l*n : (l+1)*n] {
						row[j] += v * w
					}
				}
			}
			continue
		}
		xf, yf := x.Float64s(), y.Float64s()
		for i := 0; i < m; i++ {
			row := out.F[i*n : (i+1)*n]
			for l := 0; l < k; l++ {
				v := xf[i*k+l]
				for j, w := range yf[l*n : (l+1)*n] {
					row[j] += v * w
				}
			}
		}
	}
	if out == nil {
		return nil, fmt.Errorf("%s: no blocks", opMatMul)
	}
	return out, nil
}
