package kernel

import "math/bits"

// int64Table maps int64 keys to dense int32 ids with open addressing and
// linear probing: a few nanoseconds a lookup, no allocation per key.
type int64Table struct {
	keys  []int64
	ids   []int32 // -1: empty slot
	shift uint
	n     int
}

func newInt64Table(capacity int) *int64Table {
	size := 16
	for size < 2*capacity {
		size <<= 1
	}
	t := &int64Table{keys: make([]int64, size), ids: make([]int32, size), shift: uint(64 - bits.TrailingZeros(uint(size)))}
	for i := range t.ids {
		t.ids[i] = -1
	}
	return t
}

func (t *int64Table) slot(k int64) uint64 {
	return (uint64(k) * 0x9E3779B97F4A7C15) >> t.shift
}

// getOrInsert returns k's id, giving it next if k is new.
func (t *int64Table) getOrInsert(k int64, next int32) (int32, bool) {
	mask := uint64(len(t.ids) - 1)
	for s := t.slot(k); ; s = (s + 1) & mask {
		id := t.ids[s]
		if id < 0 {
			t.keys[s], t.ids[s] = k, next
			t.n++
			if 2*t.n > len(t.ids) {
				t.grow()
			}
			return next, true
		}
		if t.keys[s] == k {
			return id, false
		}
	}
}

func (t *int64Table) grow() {
	old := *t
	*t = *newInt64Table(len(old.ids))
	mask := uint64(len(t.ids) - 1)
	for i, id := range old.ids {
		if id < 0 {
			continue
		}
		s := t.slot(old.keys[i])
		for t.ids[s] >= 0 {
			s = (s + 1) & mask
		}
		t.keys[s], t.ids[s] = old.keys[i], id
		t.n++
	}
}
