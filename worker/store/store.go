package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/registry"
)

// Store holds a worker's results, in memory or spilled to disk, and counts
// their bytes: managed memory is the exact size of the values it holds in
// memory. SpillTo writes the least recently used values to disk, when and
// as far as the worker's core decides; they are read back, transparently,
// when asked for.
//
// It is safe for concurrent use: tasks read their inputs and peers fetch
// while results arrive and are dropped. Spilling does its I/O outside the
// lock, so readers are not held up by writers.
//
// Ownership: Put takes the caller's reference to the value; Get hands out a
// new reference (Arrow values are retained) that the caller must Release;
// Delete releases the store's own.
type Store struct {
	cfg Config

	mu       sync.Mutex
	data     map[graph.Key]*entry
	lru      entry // sentinel of the in-memory values: next is most recent
	managed  int64 // bytes of the values in memory
	out      int64 // bytes in memory of the values only on disk
	spilled  int64 // bytes of the values on disk, as written
	seq      uint64
	spillErr error // the last spill's failure, until one succeeds
	stats    SpillStats
	changed  chan struct{} // closed at the next change; nil until asked for
}

// Changed returns a channel closed at the next change of what the store
// holds or where (a value put, deleted, spilled or read back), so that a
// caller waits for a state instead of polling for it.
func (s *Store) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return s.changed
}

// notify wakes the callers of Changed; the lock is held.
func (s *Store) notify() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// Config says where and when a store spills.
type Config struct {
	// Dir holds spilled values; "" never spills.
	Dir string
	// Compression of spilled values. Default S2.
	Compression Compression
	// OnLost is called with a key whose spilled value could not be read
	// back (a checksum mismatch): the store has dropped it, and the worker
	// must have it recomputed.
	OnLost func(graph.Key)
	// OnDisk, if set, is told of each value written to disk (write) or
	// read back, when, and its size in memory: the task stream shows it.
	OnDisk func(k graph.Key, write bool, start, stop time.Time, nbytes int64)
}

// SpillStats counts what the store moved to and from disk.
type SpillStats struct {
	Spills, Unspills         int64 // values
	SpillBytes, UnspillBytes int64 // in memory, before encoding
	// Projections counts the reads of some columns of a spilled record
	// (GetColumns), ProjectionBytes their size in memory.
	Projections, ProjectionBytes int64
	// ReadBytes is what was read from spill files, as stored.
	ReadBytes int64
	// Prefetches counts the values on disk asked to be read ahead.
	Prefetches int64
}

type entry struct {
	key        graph.Key
	v          any // in memory when inMem
	inMem      bool
	n          int64  // size in memory
	file       string // its copy on disk, if it has one: always when !inMem
	disk       int64  // size on disk
	byColumn   bool   // its file is a record's, by column
	spilling   bool   // being written out
	pinned     bool   // cannot be encoded: stays in memory
	prev, next *entry
}

// ErrCorrupt is returned (wrapped) by Get when a spilled value fails its
// checksum; the value is dropped and OnLost called.
var ErrCorrupt = errors.New("spilled value is corrupt")

// New returns an empty store.
func New(cfg Config) *Store {
	if cfg.Compression == 0 {
		cfg.Compression = S2
	}
	s := &Store{cfg: cfg, data: make(map[graph.Key]*entry)}
	s.lru.next, s.lru.prev = &s.lru, &s.lru
	return s
}

func (s *Store) touch(e *entry) {
	s.unlink(e)
	e.next, e.prev = s.lru.next, &s.lru
	s.lru.next.prev = e
	s.lru.next = e
}

func (s *Store) unlink(e *entry) {
	if e.next != nil {
		e.prev.next, e.next.prev = e.next, e.prev
		e.next, e.prev = nil, nil
	}
}

// Put keeps v under k and returns its size in bytes. A value already under
// k is replaced and released.
func (s *Store) Put(k graph.Key, v any) int64 {
	n := SizeOf(v)
	s.mu.Lock()
	old := s.data[k]
	if old != nil {
		s.drop(old)
	}
	e := &entry{key: k, v: v, inMem: true, n: n}
	s.data[k] = e
	s.managed += n
	s.touch(e)
	s.notify()
	s.mu.Unlock()
	if old != nil {
		s.dispose(old)
	}
	return n
}

// drop removes e from the books; dispose then frees what it held. drop is
// called with the lock held, dispose without.
func (s *Store) drop(e *entry) {
	delete(s.data, e.key)
	s.unlink(e)
	if e.inMem {
		s.managed -= e.n
	} else {
		s.out -= e.n
	}
	s.spilled -= e.disk
	s.notify()
}

func (s *Store) dispose(e *entry) {
	if e.inMem {
		registry.Release(e.v)
	}
	if e.file != "" {
		os.Remove(e.file)
	}
}

// Get returns the value under k with a reference the caller must Release,
// reading it back from disk if it was spilled. ok is false when k is not
// held; err is set when it was spilled and cannot be read back.
func (s *Store) Get(k graph.Key) (v any, ok bool, err error) {
	s.mu.Lock()
	e := s.data[k]
	switch {
	case e == nil:
		s.mu.Unlock()
		return nil, false, nil
	case e.inMem:
		s.touch(e)
		v = e.v
		registry.Retain(v)
		s.mu.Unlock()
		return v, true, nil
	}
	file := e.file
	s.mu.Unlock()

	start := time.Now()
	v, read, err := readBack(file, nil)
	s.mu.Lock()
	s.stats.ReadBytes += read
	if err != nil && s.lose(e, file) {
		return nil, false, fmt.Errorf("read back %s: %w", k, err)
	}
	if err != nil || s.data[k] != e || e.inMem {
		// Dropped, or read back by someone else meanwhile.
		cur := s.data[k]
		s.mu.Unlock()
		registry.Release(v)
		if cur == nil {
			return nil, false, nil
		}
		return s.Get(k)
	}
	// Back in memory. Results never change, so the disk copy stays: should
	// the value have to leave memory again, it need not be written again.
	s.out -= e.n
	e.v, e.inMem, e.n = v, true, SizeOf(v)
	s.managed += e.n
	s.touch(e)
	s.stats.Unspills++
	s.stats.UnspillBytes += e.n
	registry.Retain(v)
	s.notify()
	n := e.n
	s.mu.Unlock()
	if s.cfg.OnDisk != nil {
		s.cfg.OnDisk(k, false, start, time.Now(), n)
	}
	return v, true, nil
}

// GetColumns is Get for a reader of the columns named alone. A record
// spilled by column has those columns read back, and no other, for this
// caller only: the record stays on disk, and memory holds no more than
// the caller does. Any other value is Get's.
func (s *Store) GetColumns(k graph.Key, cols []string) (v any, ok bool, err error) {
	s.mu.Lock()
	e := s.data[k]
	if e == nil || e.inMem || !e.byColumn {
		s.mu.Unlock()
		return s.Get(k)
	}
	file := e.file
	s.mu.Unlock()

	start := time.Now()
	v, read, err := readBack(file, cols)
	s.mu.Lock()
	s.stats.ReadBytes += read
	if err != nil && s.lose(e, file) {
		return nil, false, fmt.Errorf("read back %s: %w", k, err)
	}
	if err != nil {
		// Dropped, or read back whole, while it was read: as it is now.
		s.mu.Unlock()
		return s.Get(k)
	}
	s.stats.Projections++
	n := SizeOf(v)
	s.stats.ProjectionBytes += n
	s.mu.Unlock()
	if s.cfg.OnDisk != nil {
		s.cfg.OnDisk(k, false, start, time.Now(), n)
	}
	return v, true, nil
}

// Prefetch has the kernel start reading k's spill file into its cache, if
// k is on disk: of a record spilled by column, the columns named (all for
// nil). It returns at once; a file that cannot be read is found out by the
// read that follows.
func (s *Store) Prefetch(k graph.Key, cols []string) {
	s.mu.Lock()
	e := s.data[k]
	if e == nil || e.inMem || e.file == "" {
		s.mu.Unlock()
		return
	}
	file, byColumn := e.file, e.byColumn
	s.stats.Prefetches++
	s.mu.Unlock()
	if !byColumn {
		cols = nil
	}
	prefetchSpill(file, cols)
}

// lose drops e, whose spill file failed to read back, if it is still on
// disk there, and reports whether it did: the lock is held, and released
// when it did.
func (s *Store) lose(e *entry, file string) bool {
	if s.data[e.key] != e || e.inMem || e.file != file {
		return false
	}
	s.drop(e)
	s.mu.Unlock()
	s.dispose(e)
	if s.cfg.OnLost != nil {
		s.cfg.OnLost(e.key)
	}
	return true
}

// readBack reads a spill file (of a record, the columns named, or all for
// nil), trying again a moment later when it could not be opened (too many
// open files); a file that still cannot be read is lost (ErrCorrupt), and
// its value recomputed. It returns the bytes it read from disk.
func readBack(file string, cols []string) (v any, read int64, err error) {
	for wait := 10 * time.Millisecond; ; wait *= 4 {
		v, n, err := readSpill(file, cols)
		read += n
		if err == nil || errors.Is(err, ErrCorrupt) {
			return v, read, err
		}
		if wait > 200*time.Millisecond {
			return nil, read, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		time.Sleep(wait)
	}
}

// GetMany returns the values of the keys held, each with a reference the
// caller must Release. Keys whose spilled value is lost are left out.
func (s *Store) GetMany(keys []graph.Key) map[graph.Key]any {
	out := make(map[graph.Key]any, len(keys))
	for _, k := range keys {
		if v, ok, _ := s.Get(k); ok {
			out[k] = v
		}
	}
	return out
}

// Delete drops k's value, in memory or on disk.
func (s *Store) Delete(k graph.Key) {
	s.mu.Lock()
	e := s.data[k]
	if e != nil {
		s.drop(e)
	}
	s.mu.Unlock()
	if e != nil {
		s.dispose(e)
	}
}

// SpillTo writes the least recently used values to disk until managed
// memory is at most limit, or nothing more can go. It moves no more than
// was over the limit when it was called, so that values arriving meanwhile
// (which spill as they come) cannot keep it going forever. It returns the
// first write's failure, which the store also keeps (SpillError) until a
// write succeeds; what failed to spill stays in memory, intact.
func (s *Store) SpillTo(limit int64) error {
	if s.cfg.Dir == "" {
		return nil
	}
	s.mu.Lock()
	budget := s.managed - limit
	s.mu.Unlock()
	for budget > 0 {
		s.mu.Lock()
		if s.managed <= limit {
			s.mu.Unlock()
			return nil
		}
		e := s.lru.prev
		for e != &s.lru && (e.spilling || e.pinned) {
			e = e.prev
		}
		if e == &s.lru {
			// Every value in memory is being written already, or cannot
			// be: none is waiting for the disk.
			s.spillErr = nil
			s.mu.Unlock()
			return nil
		}
		if e.file != "" {
			// Read back earlier and still on disk: memory lets go of it.
			budget -= s.evict(e)
			continue
		}
		v := e.v
		e.spilling = true
		registry.Retain(v)
		s.seq++
		path := filepath.Join(s.cfg.Dir, fmt.Sprintf("%d.spill", s.seq))
		s.mu.Unlock()

		start := time.Now()
		disk, err := writeSpill(path, v, s.cfg.Compression)
		registry.Release(v)
		s.mu.Lock()
		e.spilling = false
		if errors.Is(err, errUnencodable) {
			e.pinned = true // it stays in memory; the others may go
			s.mu.Unlock()
			continue
		}
		if err != nil {
			err = fmt.Errorf("spill %s: %w", e.key, err)
			s.spillErr = err
			s.mu.Unlock()
			return err
		}
		s.spillErr = nil
		if s.data[e.key] != e || !e.inMem {
			s.mu.Unlock()
			os.Remove(path) // dropped or replaced while it was written
			continue
		}
		e.file, e.disk = path, disk
		_, e.byColumn = v.(arrow.Record)
		s.spilled += disk
		s.stats.Spills++
		s.stats.SpillBytes += e.n
		k := e.key
		n := s.evict(e)
		budget -= n
		if s.cfg.OnDisk != nil {
			s.cfg.OnDisk(k, true, start, time.Now(), n)
		}
	}
	return nil
}

// evict lets go of the memory copy of e, which has one on disk, unlocks
// the store, and returns the bytes freed.
func (s *Store) evict(e *entry) int64 {
	s.unlink(e)
	s.managed -= e.n
	s.out += e.n
	n, old := e.n, e.v
	e.v, e.inMem = nil, false
	s.notify()
	s.mu.Unlock()
	registry.Release(old)
	return n
}

// Managed is the bytes of the values held in memory.
func (s *Store) Managed() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.managed
}

// Out is the bytes the values only on disk take in memory: what reading
// them back would add.
func (s *Store) Out() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out
}

// Spilled is the bytes on disk: of the values spilled, and of the copies
// kept of values read back.
func (s *Store) Spilled() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spilled
}

// SpillError is the failure of the last spill, or nil once one succeeds.
func (s *Store) SpillError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spillErr
}

// Stats counts what moved to and from disk.
func (s *Store) Stats() SpillStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Len is the number of values held, in memory or on disk.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.data)
}
