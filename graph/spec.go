package graph

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// Spec is a task in its compact encoded form: what a client sends, what
// the scheduler keeps of each task and forwards to the worker that runs
// it. It is a string, one allocation with no pointers in it, so that a
// scheduler holding a million tasks holds a million plain byte runs rather
// than a Task, its strings and slices each (issue 52); its key and inputs
// are substrings of it. The scheduler reads only Key, Inputs, Resources and
// Shuffle; a worker decodes the whole Task.
//
// The encoding: key, op, args, then the inputs (a count and each key),
// then a flags byte saying which of resources, shuffle and chain follow.
// Strings and byte runs are a uvarint length and the bytes, numbers
// uvarints, amounts float64 bits. Combine does not travel.
type Spec string

const (
	specResources = 1 << iota
	specShuffle
	specChain
	specNeeds
)

// Spec encodes t.
func (t *Task) Spec() Spec {
	return Spec(t.appendSpec(make([]byte, 0, t.specSize())))
}

// specSize is an upper bound of t's encoded length.
func (t *Task) specSize() int {
	n := 3*binary.MaxVarintLen32 + len(t.Key) + len(t.Op) + len(t.Args) + binary.MaxVarintLen32 + 1
	for _, in := range t.Inputs {
		n += binary.MaxVarintLen32 + len(in)
	}
	for name := range t.Resources {
		n += binary.MaxVarintLen32 + len(name) + 8
	}
	if sh := t.Shuffle; sh != nil {
		n += 8*binary.MaxVarintLen64 + len(sh.ID) + len(sh.Merge) + len(sh.MergeArgs) + binary.MaxVarintLen64*len(sh.Sources)
	}
	for _, need := range t.Needs {
		n += binary.MaxVarintLen32 + len(need)
	}
	for _, c := range t.Chain {
		n += binary.MaxVarintLen32 + c.specSize()
	}
	return n + binary.MaxVarintLen32
}

func (t *Task) appendSpec(b []byte) []byte {
	b = appendStr(b, string(t.Key))
	b = appendStr(b, t.Op)
	b = appendStr(b, string(t.Args))
	b = binary.AppendUvarint(b, uint64(len(t.Inputs)))
	for _, in := range t.Inputs {
		b = appendStr(b, string(in))
	}
	var flags byte
	if len(t.Resources) > 0 {
		flags |= specResources
	}
	if t.Shuffle != nil {
		flags |= specShuffle
	}
	if len(t.Chain) > 0 {
		flags |= specChain
	}
	if len(t.Needs) > 0 {
		flags |= specNeeds
	}
	b = append(b, flags)
	if len(t.Resources) > 0 {
		names := make([]string, 0, len(t.Resources))
		for n := range t.Resources {
			names = append(names, n)
		}
		slices.Sort(names)
		b = binary.AppendUvarint(b, uint64(len(names)))
		for _, n := range names {
			b = appendStr(b, n)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(t.Resources[n]))
		}
	}
	if sh := t.Shuffle; sh != nil {
		b = appendStr(b, sh.ID)
		for _, v := range []int{int(sh.Role), sh.Outputs, sh.Side, sh.Source, sh.Part, len(sh.Sources)} {
			b = binary.AppendUvarint(b, uint64(v))
		}
		for _, v := range sh.Sources {
			b = binary.AppendUvarint(b, uint64(v))
		}
		b = appendStr(b, sh.Merge)
		b = appendStr(b, string(sh.MergeArgs))
	}
	if len(t.Needs) > 0 {
		b = binary.AppendUvarint(b, uint64(len(t.Needs)))
		for _, need := range t.Needs {
			b = appendStr(b, need)
		}
	}
	if len(t.Chain) > 0 {
		b = binary.AppendUvarint(b, uint64(len(t.Chain)))
		for _, c := range t.Chain {
			b = appendStr(b, string(c.Spec()))
		}
	}
	return b
}

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// ParseSpec checks that b is a whole, well-formed spec, as bytes from
// another process must be before anything reads them, and returns it. The
// spec is b's memory, not a copy: b must not change afterwards.
func ParseSpec(b []byte) (Spec, error) {
	if len(b) == 0 {
		return "", fmt.Errorf("task spec: empty")
	}
	s := Spec(unsafe.String(&b[0], len(b)))
	r := specReader{s: string(s)}
	r.task(nil)
	if r.err == nil && r.i != len(r.s) {
		r.fail("%d bytes after its end", len(r.s)-r.i)
	}
	if r.err != nil {
		return "", r.err
	}
	return s, nil
}

// Key is the task's key.
func (s Spec) Key() Key {
	r := specReader{s: string(s)}
	return Key(r.str())
}

// NumInputs is how many inputs the task lists.
func (s Spec) NumInputs() int {
	r := specReader{s: string(s)}
	r.call()
	return r.count()
}

// Inputs calls f with each of the task's inputs, in order.
func (s Spec) Inputs(f func(Key)) {
	r := specReader{s: string(s)}
	r.call()
	for n := r.count(); n > 0 && r.err == nil; n-- {
		f(Key(r.str()))
	}
}

// Task decodes the whole task. Its strings and keys share s's memory.
func (s Spec) Task() (*Task, error) {
	t := &Task{}
	r := specReader{s: string(s)}
	r.task(t)
	if r.err != nil {
		return nil, r.err
	}
	return t, nil
}

// Head decodes what a scheduler reads besides the key and inputs: the
// resources the task needs and its part in a shuffle (nil where none).
func (s Spec) Head() (Resources, *Shuffle, error) {
	t := &Task{}
	r := specReader{s: string(s)}
	r.head(t)
	return t.Resources, t.Shuffle, r.err
}

// specReader decodes a spec; the first fault stops it and is kept in err.
type specReader struct {
	s   string
	i   int
	err error
}

func (r *specReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("task spec: "+format, args...)
	}
	r.i = len(r.s)
}

func (r *specReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if r.i >= len(r.s) || shift > 63 {
			r.fail("a number is cut off at byte %d", r.i)
			return 0
		}
		c := r.s[r.i]
		r.i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
}

// count reads a count of items that take at least a byte each.
func (r *specReader) count() int {
	n := r.uvarint()
	if n > uint64(len(r.s)-r.i) {
		r.fail("a count of %d with %d bytes left", n, len(r.s)-r.i)
		return 0
	}
	return int(n)
}

func (r *specReader) str() string {
	n := r.count()
	if r.err != nil {
		return ""
	}
	v := r.s[r.i : r.i+n]
	r.i += n
	return v
}

func (r *specReader) bytes() []byte {
	v := r.str()
	if v == "" {
		return nil
	}
	return []byte(v)
}

func (r *specReader) int() int {
	v := r.uvarint()
	if v > math.MaxInt32 {
		r.fail("a number %d past its range", v)
		return 0
	}
	return int(v)
}

// task decodes a whole task into t, or only checks it where t is nil.
func (r *specReader) task(t *Task) {
	build := t != nil
	var flags byte
	if !build {
		r.call()
		r.skipInputs()
		flags = r.rest(nil, nil)
	} else {
		t.Key = Key(r.str())
		t.Op = r.str()
		t.Args = r.bytes()
		if n := r.count(); n > 0 {
			t.Inputs = make([]Key, 0, n)
			for ; n > 0 && r.err == nil; n-- {
				t.Inputs = append(t.Inputs, Key(r.str()))
			}
		}
		flags = r.rest(t, nil)
	}
	if flags&specChain != 0 {
		n := r.count()
		for ; n > 0 && r.err == nil; n-- {
			sub := specReader{s: r.str()}
			var c *Task
			if build {
				c = &Task{}
			}
			sub.task(c)
			if sub.err == nil && sub.i != len(sub.s) {
				sub.fail("%d bytes after a chained task", len(sub.s)-sub.i)
			}
			if sub.err != nil {
				r.fail("chained task: %v", sub.err)
				return
			}
			if build {
				t.Chain = append(t.Chain, c)
			}
		}
	}
}

// head decodes up to the chain: the resources and the shuffle.
func (r *specReader) head(t *Task) {
	r.call()
	r.skipInputs()
	r.rest(t, nil)
}

// call reads the key, the operation and the arguments, and returns the
// operation.
func (r *specReader) call() (op string) {
	r.str()
	op = r.str()
	r.str()
	return op
}

// skipInputs steps over the inputs.
func (r *specReader) skipInputs() {
	for n := r.count(); n > 0 && r.err == nil; n-- {
		r.str()
	}
}

// rest decodes the flags and the resources, shuffle and needs they
// announce into t, or checks them without keeping them where t is nil;
// need, if set, is called with each need.
func (r *specReader) rest(t *Task, need func(string)) byte {
	if r.err != nil {
		return 0
	}
	if r.i >= len(r.s) {
		r.fail("its flags are missing")
		return 0
	}
	flags := r.s[r.i]
	r.i++
	if flags&^(specResources|specShuffle|specChain|specNeeds) != 0 {
		r.fail("unknown flags %#x", flags)
		return 0
	}
	if flags&specResources != 0 {
		n := r.count()
		if t != nil {
			t.Resources = make(Resources, n)
		}
		for ; n > 0 && r.err == nil; n-- {
			name := r.str()
			if len(r.s)-r.i < 8 {
				r.fail("resource %q has no amount", name)
				break
			}
			if t != nil {
				t.Resources[name] = math.Float64frombits(binary.LittleEndian.Uint64([]byte(r.s[r.i : r.i+8])))
			}
			r.i += 8
		}
	}
	if flags&specShuffle != 0 {
		sh := Shuffle{ID: r.str()}
		role := r.int()
		if role < int(Transfer) || role > int(Unpack) {
			r.fail("shuffle role %d", role)
		}
		sh.Role = ShuffleRole(role)
		sh.Outputs, sh.Side, sh.Source, sh.Part = r.int(), r.int(), r.int(), r.int()
		n := r.count()
		if t != nil && n > 0 {
			sh.Sources = make([]int, n)
		}
		for i := range n {
			if v := r.int(); sh.Sources != nil {
				sh.Sources[i] = v
			}
		}
		sh.Merge = r.str()
		if t != nil {
			sh.MergeArgs = r.bytes()
			kept := sh // only a kept shuffle is allocated
			t.Shuffle = &kept
		} else {
			r.str()
		}
	}
	if flags&specNeeds != 0 {
		n := r.count()
		if t != nil {
			t.Needs = make([]string, 0, n)
		}
		for ; n > 0 && r.err == nil; n-- {
			v := r.str()
			if t != nil {
				t.Needs = append(t.Needs, v)
			}
			if need != nil {
				need(v)
			}
		}
	}
	return flags
}

// Specs encodes tasks.
func Specs(tasks []*Task) []Spec {
	out := make([]Spec, len(tasks))
	for i, t := range tasks {
		out[i] = t.Spec()
	}
	return out
}

// Ops calls f with what running the task takes of the worker's binary:
// its operation (a fused task's chain's, in order) and what it Needs.
func (s Spec) Ops(f func(op string)) {
	r := specReader{s: string(s)}
	op := r.call()
	if op != FusedOp {
		f(op)
	}
	r.skipInputs()
	flags := r.rest(nil, f) // read in place: placement asks this per worker
	if op != FusedOp || flags&specChain == 0 {
		return
	}
	for n := r.count(); n > 0 && r.err == nil; n-- {
		Spec(r.str()).Ops(f)
	}
}
