package array

// A reduction's partial results: what a chunk folds into (chunkPartial,
// acc for full reductions), how two merge, and how they travel
// (partialCodec); reduce.go plans the tree and runs its steps.

import (
	"fmt"
	"io"

	"github.com/duskdata/dusk/internal/kernel"
)

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

// chunkPartial reduces one chunk's data.
func chunkPartial[T float64 | int64](a *reduceArgs, data []T) *partial {
	r := reductions[a.Kind]
	if a.Axis < 0 {
		acc := newAcc[T](r)
		pos := 0
		if r.orderFree() {
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
	switch r.family {
	case sums:
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
	case means, moments:
		p.F = make([]float64, size)
		for o := 0; o < outer; o++ {
			dst := p.F[o*inner : (o+1)*inner]
			for k := 0; k < n; k++ {
				for i, v := range data[(o*n+k)*inner : (o*n+k+1)*inner] {
					dst[i] += float64(v)
				}
			}
			if r.family == means {
				continue
			}
			for i := range dst {
				dst[i] /= float64(n)
			}
		}
		if r.family == moments {
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
	case extremes:
		less := r.less
		best := make([]T, size)
		var x []int64
		if r.arg {
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
	r    reduction
	n    int64
	sumF float64
	sumI int64
	best T
	x    int64
	mean float64
	m2   float64
}

func newAcc[T float64 | int64](r reduction) *acc[T] { return &acc[T]{r: r} }

// feed folds in vals, whose first element has flat index g in the array.
func (c *acc[T]) feed(vals []T, g int64) {
	if len(vals) == 0 {
		return
	}
	switch c.r.family {
	case sums, means:
		if iv, ok := any(vals).([]int64); ok && c.r.family == sums {
			for _, v := range iv {
				c.sumI += v
			}
		} else {
			c.sumF += sum4(vals)
		}
	case moments:
		nb := float64(len(vals))
		mb := sum4(vals) / nb
		var m2 float64
		for _, v := range vals {
			d := float64(v) - mb
			m2 += d * d
		}
		c.mean, c.m2 = kernel.MergeMoments(float64(c.n), c.mean, c.m2, nb, mb, m2)
	case extremes:
		less := c.r.less
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
	switch c.r.family {
	case sums:
		if isInt {
			p.I = []int64{c.sumI}
		} else {
			p.F = []float64{c.sumF}
		}
	case means:
		p.F = []float64{c.sumF}
	case moments:
		p.F, p.M = []float64{c.mean}, []float64{c.m2}
	case extremes:
		if isInt {
			p.I = []int64{int64(c.best)}
		} else {
			p.F = []float64{float64(c.best)}
		}
		if c.r.arg {
			p.X = []int64{c.x}
		}
	}
	return p
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
func merge(r reduction, dst, src *partial) {
	if src.N == 0 {
		return
	}
	if dst.N == 0 {
		*dst = *clonePartial(src)
		return
	}
	switch r.family {
	case sums, means:
		for i, v := range src.F {
			dst.F[i] += v
		}
		for i, v := range src.I {
			dst.I[i] += v
		}
	case moments:
		for i := range dst.F {
			dst.F[i], dst.M[i] = kernel.MergeMoments(float64(dst.N), dst.F[i], dst.M[i], float64(src.N), src.F[i], src.M[i])
		}
	case extremes:
		less := r.less
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
