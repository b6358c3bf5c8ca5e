//go:build goexperiment.simd && amd64

package kernel

import (
	"encoding/binary"

	"simd/archsimd"
)

// cmpScalarSIMD is cmpScalar of int64s or float64s four at a time in AVX2
// registers, where the CPU has AVX2: each lane's comparison is the one the
// scalar loop makes (a NaN is unequal to everything, below and above
// nothing), and the lanes' mask bits become the answer's bytes through
// bitBytes. It reports whether it ran.
func cmpScalarSIMD[T int32 | int64 | float64](x []T, s T, op CmpOp, out []uint8) bool {
	if !archsimd.X86.AVX2() {
		return false
	}
	switch x := any(x).(type) {
	case []int64:
		cmpInts4(x, any(s).(int64), op, out)
	case []float64:
		cmpFloats4(x, any(s).(float64), op, out)
	default:
		return false
	}
	return true
}

// bitBytes spreads four mask bits into four bytes of 0 or 1.
var bitBytes = func() (t [16]uint32) {
	for b := range t {
		for k := range 4 {
			t[b] |= uint32(b>>k&1) << (8 * k)
		}
	}
	return t
}()

func cmpInts4(x []int64, s int64, op CmpOp, out []uint8) {
	out = out[:len(x)]
	s4 := archsimd.BroadcastInt64x4(s)
	i := 0
	switch op {
	case Eq:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadInt64x4Slice(x[i:i+4]).Equal(s4).ToBits()])
		}
	case Ne:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadInt64x4Slice(x[i:i+4]).NotEqual(s4).ToBits()])
		}
	case Lt:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadInt64x4Slice(x[i:i+4]).Less(s4).ToBits()])
		}
	case Le:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadInt64x4Slice(x[i:i+4]).LessEqual(s4).ToBits()])
		}
	case Gt:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadInt64x4Slice(x[i:i+4]).Greater(s4).ToBits()])
		}
	case Ge:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadInt64x4Slice(x[i:i+4]).GreaterEqual(s4).ToBits()])
		}
	}
	cmpScalar(x[i:], s, op, out[i:])
}

func cmpFloats4(x []float64, s float64, op CmpOp, out []uint8) {
	out = out[:len(x)]
	s4 := archsimd.BroadcastFloat64x4(s)
	i := 0
	switch op {
	case Eq:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadFloat64x4Slice(x[i:i+4]).Equal(s4).ToBits()])
		}
	case Ne:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadFloat64x4Slice(x[i:i+4]).NotEqual(s4).ToBits()])
		}
	case Lt:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadFloat64x4Slice(x[i:i+4]).Less(s4).ToBits()])
		}
	case Le:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadFloat64x4Slice(x[i:i+4]).LessEqual(s4).ToBits()])
		}
	case Gt:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadFloat64x4Slice(x[i:i+4]).Greater(s4).ToBits()])
		}
	case Ge:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadFloat64x4Slice(x[i:i+4]).GreaterEqual(s4).ToBits()])
		}
	}
	cmpScalar(x[i:], s, op, out[i:])
}

// cmpArraysSIMD is cmpArrays of int64s or float64s four at a time, as
// cmpScalarSIMD is cmpScalar's. It reports whether it ran.
func cmpArraysSIMD[T int32 | int64 | float64](x, y []T, op CmpOp, out []uint8) bool {
	if !archsimd.X86.AVX2() {
		return false
	}
	switch x := any(x).(type) {
	case []int64:
		cmpIntArrays4(x, any(y).([]int64), op, out)
	case []float64:
		cmpFloatArrays4(x, any(y).([]float64), op, out)
	default:
		return false
	}
	return true
}

func cmpIntArrays4(x, y []int64, op CmpOp, out []uint8) {
	out, y = out[:len(x)], y[:len(x)]
	i := 0
	switch op {
	case Eq:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadInt64x4Slice(x[i:i+4]).Equal(archsimd.LoadInt64x4Slice(y[i:i+4])).ToBits()])
		}
	case Ne:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadInt64x4Slice(x[i:i+4]).NotEqual(archsimd.LoadInt64x4Slice(y[i:i+4])).ToBits()])
		}
	case Lt:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadInt64x4Slice(x[i:i+4]).Less(archsimd.LoadInt64x4Slice(y[i:i+4])).ToBits()])
		}
	case Le:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadInt64x4Slice(x[i:i+4]).LessEqual(archsimd.LoadInt64x4Slice(y[i:i+4])).ToBits()])
		}
	case Gt:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadInt64x4Slice(x[i:i+4]).Greater(archsimd.LoadInt64x4Slice(y[i:i+4])).ToBits()])
		}
	case Ge:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadInt64x4Slice(x[i:i+4]).GreaterEqual(archsimd.LoadInt64x4Slice(y[i:i+4])).ToBits()])
		}
	}
	cmpArrays(x[i:], y[i:], op, out[i:])
}

func cmpFloatArrays4(x, y []float64, op CmpOp, out []uint8) {
	out, y = out[:len(x)], y[:len(x)]
	i := 0
	switch op {
	case Eq:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadFloat64x4Slice(x[i:i+4]).Equal(archsimd.LoadFloat64x4Slice(y[i:i+4])).ToBits()])
		}
	case Ne:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadFloat64x4Slice(x[i:i+4]).NotEqual(archsimd.LoadFloat64x4Slice(y[i:i+4])).ToBits()])
		}
	case Lt:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadFloat64x4Slice(x[i:i+4]).Less(archsimd.LoadFloat64x4Slice(y[i:i+4])).ToBits()])
		}
	case Le:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadFloat64x4Slice(x[i:i+4]).LessEqual(archsimd.LoadFloat64x4Slice(y[i:i+4])).ToBits()])
		}
	case Gt:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadFloat64x4Slice(x[i:i+4]).Greater(archsimd.LoadFloat64x4Slice(y[i:i+4])).ToBits()])
		}
	case Ge:
		for ; i+4 <= len(x); i += 4 {
			binary.LittleEndian.PutUint32(out[i:i+4], bitBytes[archsimd.LoadFloat64x4Slice(x[i:i+4]).GreaterEqual(archsimd.LoadFloat64x4Slice(y[i:i+4])).ToBits()])
		}
	}
	cmpArrays(x[i:], y[i:], op, out[i:])
}
