package gpu

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Device is one GPU with Dusk's kernels loaded. Its operations run one at
// a time (they share a pinned staging buffer); each copies its inputs in,
// runs its kernels and copies the results out.
type Device struct {
	mu     sync.Mutex
	d      *driver
	name   string
	memory uint64
	ctx    uintptr
	fns    map[string]uintptr
	stage  []byte // pinned host memory: every copy goes through it
	stats  Stats
}

// Stats are the time a device spent copying and computing.
type Stats struct {
	Transfer      time.Duration // host<->device copies, staging included
	Compute       time.Duration // kernels, from launch to synchronized
	BytesIn       int64
	BytesOut      int64
	KernelsLaunch int64
}

// stageBytes is the size of the pinned staging buffer that a device opens
// with (a variable for the tests, which make copies take several rounds).
var stageBytes = 32 << 20

// threads is the block size of every launch; sum_* rely on it.
const threads = 256

var (
	openOnce sync.Once
	opened   *Device
	openErr  error
)

// Default returns the first GPU, opened once per process, or why there is
// none: no driver library, no device, or a kernel the driver rejects.
func Default() (*Device, error) {
	openOnce.Do(func() { opened, openErr = Open(0) })
	return opened, openErr
}

// Available reports whether Default has a GPU.
func Available() bool {
	_, err := Default()
	return err == nil
}

// ForTask returns the kernels for a task that holds a GPU (holds), or nil
// where it does not or this process has no GPU: the caller then runs its
// CPU path.
func ForTask(holds bool) Kernels {
	if !holds {
		return nil
	}
	if k := override.Load(); k != nil {
		return *k
	}
	d, err := Default()
	if err != nil {
		return nil
	}
	return d
}

// override is what ForTask returns instead of the device, when set.
var override atomic.Pointer[Kernels]

// Override makes ForTask return k, instead of the device, until restore
// runs: the tests of the collections' GPU paths run them on Reference on
// machines without a GPU.
func Override(k Kernels) (restore func()) {
	old := override.Swap(&k)
	return func() { override.Store(old) }
}

// Count returns how many GPUs the driver sees: 0 without a driver.
func Count() int {
	d, err := loadDriver()
	if err != nil {
		return 0
	}
	var n int32
	if d.cuInit(0) != 0 || d.cuDeviceGetCount(&n) != 0 {
		return 0
	}
	return int(n)
}

// Open initializes the driver, takes GPU ordinal's primary context, and
// loads the kernels.
func Open(ordinal int) (*Device, error) {
	d, err := loadDriver()
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := d.check("cuInit", d.cuInit(0)); err != nil {
		return nil, fmt.Errorf("%w (no usable GPU)", err)
	}
	var n int32
	if err := d.check("cuDeviceGetCount", d.cuDeviceGetCount(&n)); err != nil {
		return nil, err
	}
	if ordinal >= int(n) {
		return nil, fmt.Errorf("gpu: no GPU %d: the driver sees %d", ordinal, n)
	}
	var dev int32
	if err := d.check("cuDeviceGet", d.cuDeviceGet(&dev, int32(ordinal))); err != nil {
		return nil, err
	}
	g := &Device{d: d, fns: map[string]uintptr{}}
	name := make([]byte, 256)
	if err := d.check("cuDeviceGetName", d.cuDeviceGetName(name, int32(len(name)), dev)); err != nil {
		return nil, err
	}
	g.name = cString(&name[0])
	if err := d.check("cuDeviceTotalMem", d.cuDeviceTotalMem(&g.memory, dev)); err != nil {
		return nil, err
	}
	if err := d.check("cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain(&g.ctx, dev)); err != nil {
		return nil, err
	}
	if err := d.check("cuCtxSetCurrent", d.cuCtxSetCurrent(g.ctx)); err != nil {
		return nil, err
	}
	image := append([]byte(ptx), 0)
	var mod uintptr
	if err := d.check("cuModuleLoadData (kernels/dusk.ptx)", d.cuModuleLoadData(&mod, unsafe.Pointer(&image[0]))); err != nil {
		return nil, err
	}
	for _, e := range entries {
		var fn uintptr
		if err := d.check("cuModuleGetFunction "+e, d.cuModuleGetFunction(&fn, mod, e)); err != nil {
			return nil, err
		}
		g.fns[e] = fn
	}
	var stage unsafe.Pointer
	if err := d.check("cuMemAllocHost", d.cuMemAllocHost(&stage, uint64(stageBytes))); err != nil {
		return nil, err
	}
	g.stage = unsafe.Slice((*byte)(stage), stageBytes)
	return g, nil
}

// Name is the GPU's name, as the driver reports it.
func (g *Device) Name() string { return g.name }

// Memory is the GPU's memory in bytes.
func (g *Device) Memory() uint64 { return g.memory }

// Stats returns the time spent so far copying and computing.
func (g *Device) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}

// session is one operation on the device: it holds the device and its
// context on a locked OS thread, and frees what it allocated at the end.
type session struct {
	g    *Device
	bufs []uint64
	err  error
}

func (g *Device) begin() *session {
	g.mu.Lock()
	runtime.LockOSThread()
	s := &session{g: g}
	s.fail("cuCtxSetCurrent", g.d.cuCtxSetCurrent(g.ctx))
	return s
}

// end frees the session's buffers and releases the device; deferred by
// every operation, so that a panic does not leave the device held.
func (s *session) end() {
	for _, b := range s.bufs {
		s.fail("cuMemFree", s.g.d.cuMemFree(b))
	}
	s.bufs = nil
	runtime.UnlockOSThread()
	s.g.mu.Unlock()
}

// free frees p, one of the session's buffers, before the session's end.
func (s *session) free(p uint64) {
	if i := slices.Index(s.bufs, p); i >= 0 {
		s.bufs = slices.Delete(s.bufs, i, i+1)
		s.fail("cuMemFree", s.g.d.cuMemFree(p))
	}
}

// memset sets n bytes at p to v, unless the session has failed.
func (s *session) memset(p uint64, v uint8, n int) {
	if s.err == nil {
		s.fail("cuMemsetD8", s.g.d.cuMemsetD8(p, v, uint64(n)))
	}
}

// fail records the first failed call.
func (s *session) fail(call string, r result) {
	if s.err == nil {
		s.err = s.g.d.check(call, r)
	}
}

// alloc allocates n bytes of device memory, freed at the session's end.
func (s *session) alloc(n int) uint64 {
	if s.err != nil {
		return 0
	}
	var p uint64
	s.fail("cuMemAlloc", s.g.d.cuMemAlloc(&p, uint64(max(n, 8))))
	if s.err == nil {
		s.bufs = append(s.bufs, p)
	}
	return p
}

// bytesOf views a slice's elements as bytes.
func bytesOf[T any](x []T) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), len(x)*int(unsafe.Sizeof(x[0])))
}

// upload copies x to new device memory through the pinned staging buffer.
func upload[T any](s *session, x []T) uint64 {
	b := bytesOf(x)
	p := s.alloc(len(b))
	defer s.timed(&s.g.stats.Transfer)()
	for off := 0; off < len(b) && s.err == nil; off += len(s.g.stage) {
		c := copy(s.g.stage, b[off:])
		s.fail("cuMemcpyHtoD", s.g.d.cuMemcpyHtoD(p+uint64(off), unsafe.Pointer(&s.g.stage[0]), uint64(c)))
	}
	s.g.stats.BytesIn += int64(len(b))
	return p
}

// download copies device memory at p into x through the staging buffer.
func download[T any](s *session, p uint64, x []T) {
	b := bytesOf(x)
	defer s.timed(&s.g.stats.Transfer)()
	for off := 0; off < len(b) && s.err == nil; off += len(s.g.stage) {
		c := min(len(s.g.stage), len(b)-off)
		s.fail("cuMemcpyDtoH", s.g.d.cuMemcpyDtoH(unsafe.Pointer(&s.g.stage[0]), p+uint64(off), uint64(c)))
		copy(b[off:off+c], s.g.stage)
	}
	s.g.stats.BytesOut += int64(len(b))
}

// timed adds the time until the returned function runs to d.
func (s *session) timed(d *time.Duration) func() {
	start := time.Now()
	return func() { *d += time.Since(start) }
}

// grid is the number of blocks that cover n elements, capped: the kernels
// stride over the rest.
func grid(n int) int { return max(1, min((n+threads-1)/threads, 1024)) }

// launch runs kernel fn over n elements and waits for it. Each argument is
// a device pointer (uint64), an int64, a float64 or an int32.
func (s *session) launch(fn string, n int, args ...any) {
	if s.err != nil {
		return
	}
	vals := make([]uint64, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case uint64:
			vals[i] = v
		case int64:
			vals[i] = uint64(v)
		case int32:
			vals[i] = uint64(uint32(v))
		case float64:
			vals[i] = math.Float64bits(v)
		default:
			panic(fmt.Sprintf("gpu: launch %s: argument %d has type %T", fn, i, a))
		}
	}
	// The driver reads each parameter through a pointer: pin them, as
	// Go memory handed to C must be.
	params := make([]unsafe.Pointer, len(vals))
	var pin runtime.Pinner
	defer pin.Unpin()
	for i := range vals {
		pin.Pin(&vals[i])
		params[i] = unsafe.Pointer(&vals[i])
	}
	pin.Pin(&params[0])
	defer s.timed(&s.g.stats.Compute)()
	s.fail("cuLaunchKernel "+fn, s.g.d.cuLaunchKernel(s.g.fns[fn], uint32(grid(n)), 1, 1, threads, 1, 1, 0, 0, unsafe.Pointer(&params[0]), 0))
	if s.err == nil {
		s.fail("cuCtxSynchronize after "+fn, s.g.d.cuCtxSynchronize())
	}
	s.g.stats.KernelsLaunch++
}

func compareOn[T Number](g *Device, fn string, x []T, op CmpOp, scalar T, out []uint8) error {
	if len(out) != len(x) {
		return fmt.Errorf("gpu: compare: %d outputs for %d values", len(out), len(x))
	}
	if op < Less || op > NotEqual {
		return fmt.Errorf("gpu: compare: unknown operator %d", op)
	}
	if len(x) == 0 {
		return nil
	}
	s := g.begin()
	defer s.end()
	dx := upload(s, x)
	dout := s.alloc(len(out))
	s.launch(fn, len(x), dx, scalar, int32(op), dout, int64(len(x)))
	download(s, dout, out)
	return s.err
}

// CompareFloat64 sets out[i] to x[i] op scalar on the GPU.
func (g *Device) CompareFloat64(x []float64, op CmpOp, scalar float64, out []uint8) error {
	return compareOn(g, "cmp_f64", x, op, scalar, out)
}

// CompareInt64 sets out[i] to x[i] op scalar on the GPU.
func (g *Device) CompareInt64(x []int64, op CmpOp, scalar int64, out []uint8) error {
	return compareOn(g, "cmp_i64", x, op, scalar, out)
}

func arithOn[T Number](g *Device, fn string, a, b []T, scalar T, op ArithOp, out []T) error {
	if len(out) != len(a) || b != nil && len(b) != len(a) {
		return fmt.Errorf("gpu: arith: lengths %d, %d and %d differ", len(a), len(b), len(out))
	}
	if op < Add || op > Div {
		return fmt.Errorf("gpu: arith: unknown operator %d", op)
	}
	if len(a) == 0 {
		return nil
	}
	s := g.begin()
	defer s.end()
	da := upload(s, a)
	var db uint64
	if b != nil {
		db = upload(s, b)
	}
	dout := s.alloc(len(bytesOf(out)))
	s.launch(fn, len(a), da, db, scalar, int32(op), dout, int64(len(a)))
	download(s, dout, out)
	return s.err
}

// ArithFloat64 sets out[i] to a[i] op b[i] (or scalar) on the GPU.
func (g *Device) ArithFloat64(a, b []float64, scalar float64, op ArithOp, out []float64) error {
	return arithOn(g, "arith_f64", a, b, scalar, op, out)
}

// ArithInt64 sets out[i] to a[i] op b[i] (or scalar) on the GPU; Div is
// ErrUnsupported.
func (g *Device) ArithInt64(a, b []int64, scalar int64, op ArithOp, out []int64) error {
	if op == Div {
		return ErrUnsupported
	}
	return arithOn(g, "arith_i64", a, b, scalar, op, out)
}

func sumOn[T Number](g *Device, fn string, x []T) (T, error) {
	if len(x) == 0 {
		return 0, nil
	}
	s := g.begin()
	defer s.end()
	dx := upload(s, x)
	blocks := grid(len(x))
	dpart := s.alloc(8 * blocks)
	s.launch(fn, len(x), dx, int64(len(x)), dpart)
	part := make([]T, blocks)
	download(s, dpart, part)
	var sum T
	for _, p := range part {
		sum += p
	}
	return sum, s.err
}

// SumFloat64 adds x up on the GPU: per block in shared memory, then the
// blocks' partial sums on the host.
func (g *Device) SumFloat64(x []float64) (float64, error) { return sumOn(g, "sum_f64", x) }

// SumInt64 adds x up on the GPU.
func (g *Device) SumInt64(x []int64) (int64, error) { return sumOn(g, "sum_i64", x) }

// emptyKey is the free-slot mark of group_i64's table (dusk.cu's EMPTY).
const emptyKey = int64(-0x7f7f7f7f7f7f7f80) // 0x8080808080808080

// GroupBy groups and aggregates on the GPU: int64 keys through a hash
// table in device memory (retried larger if it fills), codes by index;
// the groups' aggregates are compacted on the host.
func (g *Device) GroupBy(q GroupBy) (GroupResult, error) {
	if err := q.check(); err != nil {
		return GroupResult{}, err
	}
	for _, k := range q.Keys {
		if k == emptyKey {
			return GroupResult{}, ErrUnsupported
		}
	}
	for i, c := range q.Codes {
		if c < 0 || int(c) >= q.NCodes {
			return GroupResult{}, fmt.Errorf("gpu: group by: row %d: code %d outside 0..%d", i, c, q.NCodes-1)
		}
	}
	n := q.Rows()
	s := g.begin()
	defer s.end()
	var dgroup uint64
	var table []int64
	groups := q.NCodes
	if q.Keys != nil {
		dkeys := upload(s, q.Keys)
		dgroup = s.alloc(4 * n)
		dover, dfilled := s.alloc(4), s.alloc(8)
		size := 1 << bits.Len(uint(min(2*n, 1<<16)))
		for s.err == nil {
			dtable := s.alloc(8 * size)
			s.memset(dtable, 0x80, 8*size)
			s.memset(dover, 0, 4)
			s.memset(dfilled, 0, 8)
			s.launch("group_i64", n, dkeys, int64(n), dtable, int64(size), dgroup, dover, dfilled)
			over := []int32{0}
			download(s, dover, over)
			if over[0] == 0 {
				table = make([]int64, size)
				download(s, dtable, table)
				groups = size
				break
			}
			s.free(dtable)
			size *= 8
		}
	} else {
		dgroup = upload(s, q.Codes)
	}
	dcount := s.alloc(8 * groups)
	s.memset(dcount, 0, 8*groups)
	type outs struct{ sum, lo, hi uint64 }
	douts := make([]outs, len(q.Cols))
	counted := false
	for i, c := range q.Cols {
		o := &douts[i]
		fill := func(want bool, bitsOf int64) uint64 {
			if !want {
				return 0
			}
			p := s.alloc(8 * groups)
			s.launch("fill_i64", groups, p, bitsOf, int64(groups))
			return p
		}
		fn := "agg_i64"
		var dx uint64
		if c.F64 != nil {
			fn = "agg_f64"
			dx = upload(s, c.F64)
			o.sum = fill(c.Sum, 0)
			o.lo = fill(c.Min, int64(math.Float64bits(math.Inf(1))))
			o.hi = fill(c.Max, int64(math.Float64bits(math.Inf(-1))))
		} else {
			dx = upload(s, c.I64)
			o.sum = fill(c.Sum, 0)
			o.lo = fill(c.Min, math.MaxInt64)
			o.hi = fill(c.Max, math.MinInt64)
		}
		dc := uint64(0)
		if !counted {
			dc, counted = dcount, true
		}
		s.launch(fn, n, dgroup, dx, int64(n), dc, o.sum, o.lo, o.hi)
	}
	if !counted {
		s.launch("agg_i64", n, dgroup, uint64(0), int64(n), dcount, uint64(0), uint64(0), uint64(0))
	}
	count := make([]int64, groups)
	download(s, dcount, count)
	var res GroupResult
	var present []int
	for grp, c := range count {
		if c == 0 {
			continue
		}
		present = append(present, grp)
		res.Count = append(res.Count, c)
		if table != nil {
			res.Keys = append(res.Keys, table[grp])
		} else {
			res.Codes = append(res.Codes, int32(grp))
		}
	}
	for i, c := range q.Cols {
		var r AggResult
		if c.F64 != nil {
			r.SumF = gatherOut[float64](s, douts[i].sum, groups, present)
			r.MinF = gatherOut[float64](s, douts[i].lo, groups, present)
			r.MaxF = gatherOut[float64](s, douts[i].hi, groups, present)
		} else {
			r.SumI = gatherOut[int64](s, douts[i].sum, groups, present)
			r.MinI = gatherOut[int64](s, douts[i].lo, groups, present)
			r.MaxI = gatherOut[int64](s, douts[i].hi, groups, present)
		}
		res.Cols = append(res.Cols, r)
	}
	if s.err != nil {
		return GroupResult{}, s.err
	}
	return res, nil
}

// gatherOut downloads a per-group array and keeps the present groups'
// entries: nil where p is 0 (not asked for).
func gatherOut[T Number](s *session, p uint64, groups int, present []int) []T {
	if p == 0 {
		return nil
	}
	all := make([]T, groups)
	download(s, p, all)
	out := make([]T, len(present))
	for i, grp := range present {
		out[i] = all[grp]
	}
	return out
}

var _ Kernels = (*Device)(nil)
