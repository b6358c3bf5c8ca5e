package array

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/duskdata/dusk/gpu"
	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
)

const opMap = "array-map"

func init() { registry.RegisterGPU(opMap, mapOp) }

// mapArgs are an elementwise task's arguments: the operation, a literal
// scalar operand, whether the array is the right operand, and the result's
// dtype.
type mapArgs struct {
	Op    string   `json:"op"`
	Lit   *float64 `json:"lit,omitempty"`
	Rev   bool     `json:"rev,omitempty"`
	DType DType    `json:"dtype"`
}

var binaryOps = map[string]func(x, y float64) float64{
	"add": func(x, y float64) float64 { return x + y },
	"sub": func(x, y float64) float64 { return x - y },
	"mul": func(x, y float64) float64 { return x * y },
	"div": func(x, y float64) float64 { return x / y },
	"pow": math.Pow,
	"max": math.Max,
	"min": math.Min,
}

var intOps = map[string]func(x, y int64) int64{
	"add": func(x, y int64) int64 { return x + y },
	"sub": func(x, y int64) int64 { return x - y },
	"mul": func(x, y int64) int64 { return x * y },
	"max": func(x, y int64) int64 { return max(x, y) },
	"min": func(x, y int64) int64 { return min(x, y) },
}

var unaryOps = map[string]func(x float64) float64{
	"neg": func(x float64) float64 { return -x }, "abs": math.Abs, "sqrt": math.Sqrt,
	"exp": math.Exp, "log": math.Log, "sin": math.Sin, "cos": math.Cos, "tanh": math.Tanh,
	"floor": math.Floor, "ceil": math.Ceil,
}

// Add is a + b elementwise; b has a's shape (its chunks are matched to a's)
// or is 0-d (Scalar, or a full reduction), which applies to every element.
func (a *Array) Add(b *Array) *Array { return a.binary("add", b) }

// Sub is a - b; see Add.
func (a *Array) Sub(b *Array) *Array { return a.binary("sub", b) }

// Mul is a * b; see Add.
func (a *Array) Mul(b *Array) *Array { return a.binary("mul", b) }

// Div is a / b, always float64; see Add.
func (a *Array) Div(b *Array) *Array { return a.binary("div", b) }

// Pow is a raised to b, always float64; see Add.
func (a *Array) Pow(b *Array) *Array { return a.binary("pow", b) }

// Maximum is the larger of a and b elementwise; see Add.
func (a *Array) Maximum(b *Array) *Array { return a.binary("max", b) }

// Minimum is the smaller of a and b elementwise; see Add.
func (a *Array) Minimum(b *Array) *Array { return a.binary("min", b) }

// AddScalar, SubScalar, MulScalar and DivScalar apply v to every element.
func (a *Array) AddScalar(v float64) *Array { return a.binary("add", Scalar(v)) }
func (a *Array) SubScalar(v float64) *Array { return a.binary("sub", Scalar(v)) }
func (a *Array) MulScalar(v float64) *Array { return a.binary("mul", Scalar(v)) }
func (a *Array) DivScalar(v float64) *Array { return a.binary("div", Scalar(v)) }

// Neg, Abs, Sqrt, Exp, Log, Sin, Cos, Tanh, Floor and Ceil apply the
// function to every element; all but Neg and Abs of int64s give float64s.
func (a *Array) Neg() *Array   { return a.unary("neg") }
func (a *Array) Abs() *Array   { return a.unary("abs") }
func (a *Array) Sqrt() *Array  { return a.unary("sqrt") }
func (a *Array) Exp() *Array   { return a.unary("exp") }
func (a *Array) Log() *Array   { return a.unary("log") }
func (a *Array) Sin() *Array   { return a.unary("sin") }
func (a *Array) Cos() *Array   { return a.unary("cos") }
func (a *Array) Tanh() *Array  { return a.unary("tanh") }
func (a *Array) Floor() *Array { return a.unary("floor") }
func (a *Array) Ceil() *Array  { return a.unary("ceil") }

func (a *Array) unary(op string) *Array {
	if a.err != nil {
		return a
	}
	dt := Float64
	if a.dtype == Int64 && (op == "neg" || op == "abs") {
		dt = Int64
	}
	args := mustJSON(mapArgs{Op: op, DType: dt})
	tok := token("array-"+op, args, a)
	out := &Array{shape: a.shape, chunks: a.chunks, dtype: dt}
	out.n = &node{tok: tok, lower: func(l *lowering) []graph.Key {
		in := l.keys(a)
		keys := make([]graph.Key, len(in))
		for i, k := range in {
			keys[i] = l.add(graph.Part(tok, i), opMap, args, k)
		}
		return keys
	}}
	return out
}

func (a *Array) binary(op string, b *Array) *Array {
	if a.err != nil {
		return a
	}
	if b.err != nil {
		return b
	}
	dt := Float64
	if a.dtype == Int64 && b.dtype == Int64 && intOps[op] != nil {
		dt = Int64
	}
	rev := false
	if a.NDim() == 0 && b.NDim() > 0 {
		a, b, rev = b, a, true
	}
	if b.NDim() > 0 {
		if !slices.Equal(a.shape, b.shape) {
			return failed(fmt.Errorf("array: %s: shapes %v and %v differ (only equal shapes and 0-d operands broadcast)", op, a.shape, b.shape))
		}
		if !equalChunks(a.chunks, b.chunks) {
			b = b.rechunkTo(a.chunks)
		}
	}
	ma := mapArgs{Op: op, Rev: rev, DType: dt}
	if b.n.lit != nil {
		ma.Lit = b.n.lit
	}
	args := mustJSON(ma)
	tok := token("array-"+op, args, a, b)
	out := &Array{shape: a.shape, chunks: a.chunks, dtype: dt}
	out.n = &node{tok: tok, lower: func(l *lowering) []graph.Key {
		in := l.keys(a)
		var other []graph.Key
		if ma.Lit == nil {
			other = l.keys(b)
		}
		keys := make([]graph.Key, len(in))
		for i, k := range in {
			inputs := []graph.Key{k}
			switch {
			case ma.Lit != nil:
			case b.NDim() == 0:
				inputs = append(inputs, other[0])
			default:
				inputs = append(inputs, other[i])
			}
			keys[i] = l.add(graph.Part(tok, i), opMap, args, inputs...)
		}
		return keys
	}}
	return out
}

func mapOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a mapArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", opMap, err)
	}
	x, ok := inputs[0].(*Dense)
	if !ok {
		return nil, fmt.Errorf("%s: input is a %T, not an array chunk", opMap, inputs[0])
	}
	out := newDense(a.DType, x.Shape)
	if f := unaryOps[a.Op]; f != nil {
		if a.DType == Int64 {
			for i, v := range x.I {
				if a.Op == "neg" || v < 0 {
					v = -v
				}
				out.I[i] = v
			}
			return out, nil
		}
		for i := range out.F {
			out.F[i] = f(x.Float(i))
		}
		return out, nil
	}
	var y *Dense
	switch {
	case a.Lit != nil:
		y = &Dense{Shape: []int{}, DType: Float64, F: []float64{*a.Lit}}
		if a.DType == Int64 {
			y = &Dense{Shape: []int{}, DType: Int64, I: []int64{int64(*a.Lit)}}
		}
	case len(inputs) > 1:
		if y, ok = inputs[1].(*Dense); !ok {
			return nil, fmt.Errorf("%s: operand is a %T, not an array chunk", opMap, inputs[1])
		}
	default:
		return nil, fmt.Errorf("%s: %s needs a second operand", opMap, a.Op)
	}
	scalar := y.Len() == 1 && len(y.Shape) == 0
	if k := accelerator(tc); k != nil {
		if ok, err := gpuMap(k, a, x, y, scalar, out); ok || err != nil {
			return out, err
		}
	}
	if a.DType == Int64 {
		f := intOps[a.Op]
		for i, v := range x.I {
			w := y.I[0]
			if !scalar {
				w = y.I[i]
			}
			if a.Rev {
				v, w = w, v
			}
			out.I[i] = f(v, w)
		}
		return out, nil
	}
	f := binaryOps[a.Op]
	if f == nil {
		return nil, fmt.Errorf("%s: unknown operation %q", opMap, a.Op)
	}
	if a.Op == "add" && x.DType == Float64 && y.DType == Float64 && !a.Rev {
		if scalar {
			w := y.F[0]
			for i, v := range x.F {
				out.F[i] = v + w
			}
		} else {
			for i, v := range x.F {
				out.F[i] = v + y.F[i]
			}
		}
		return out, nil
	}
	for i := range out.F {
		v, w := x.Float(i), y.Float(0)
		if !scalar {
			w = y.Float(i)
		}
		if a.Rev {
			v, w = w, v
		}
		out.F[i] = f(v, w)
	}
	return out, nil
}

// gpuArith numbers the operators that have GPU kernels as gpu numbers them.
var gpuArith = map[string]gpu.ArithOp{"add": gpu.Add, "sub": gpu.Sub, "mul": gpu.Mul, "div": gpu.Div}

// gpuMap computes out = x op y on k, where both operands have out's dtype
// and the operator a kernel (int64 division has none); ok is false where
// the CPU computes it.
func gpuMap(k gpu.Kernels, a mapArgs, x, y *Dense, scalar bool, out *Dense) (bool, error) {
	op, has := gpuArith[a.Op]
	if !has || a.Rev || x.DType != a.DType || y.DType != a.DType {
		return false, nil
	}
	var err error
	if a.DType == Int64 {
		b, s := y.I, int64(0)
		if scalar {
			b, s = nil, y.I[0]
		}
		err = k.ArithInt64(x.I, b, s, op, out.I)
	} else {
		b, s := y.F, 0.0
		if scalar {
			b, s = nil, y.F[0]
		}
		err = k.ArithFloat64(x.F, b, s, op, out.F)
	}
	if errors.Is(err, gpu.ErrUnsupported) {
		return false, nil
	}
	return err == nil, err
}
