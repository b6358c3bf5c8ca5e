package worker

import (
	"sync"

	"github.com/duskdata/dusk/graph"
)

// Store holds a worker's results and counts the bytes they use. It is safe
// for concurrent use: tasks read their inputs and peers fetch while the
// worker's loop adds and drops results.
//
// Ownership: Put takes the caller's reference to the value; Get hands out a
// new reference (Arrow values are retained) that the caller must Release;
// Delete releases the store's own.
type Store struct {
	mu     sync.RWMutex
	data   map[graph.Key]stored
	nbytes int64
}

type stored struct {
	v any
	n int64
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{data: make(map[graph.Key]stored)}
}

// Put keeps v under k and returns its size in bytes. A value already under
// k is replaced and released.
func (s *Store) Put(k graph.Key, v any) int64 {
	n := SizeOf(v)
	s.mu.Lock()
	old, had := s.data[k]
	s.data[k] = stored{v: v, n: n}
	s.nbytes += n - old.n
	s.mu.Unlock()
	if had {
		Release(old.v)
	}
	return n
}

// Get returns the value under k with a reference the caller must Release.
func (s *Store) Get(k graph.Key) (any, bool) {
	s.mu.RLock()
	e, ok := s.data[k]
	if ok {
		Retain(e.v)
	}
	s.mu.RUnlock()
	return e.v, ok
}

// GetMany returns the values of the keys held, each with a reference the
// caller must Release, taking the lock once.
func (s *Store) GetMany(keys []graph.Key) map[graph.Key]any {
	out := make(map[graph.Key]any, len(keys))
	s.mu.RLock()
	for _, k := range keys {
		if e, ok := s.data[k]; ok {
			Retain(e.v)
			out[k] = e.v
		}
	}
	s.mu.RUnlock()
	return out
}

// Delete drops k's value, if any.
func (s *Store) Delete(k graph.Key) {
	s.mu.Lock()
	e, ok := s.data[k]
	if ok {
		delete(s.data, k)
		s.nbytes -= e.n
	}
	s.mu.Unlock()
	if ok {
		Release(e.v)
	}
}

// Nbytes is the size of everything held: the worker's managed memory.
func (s *Store) Nbytes() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.nbytes
}

// Len is the number of results held.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.data)
}

// Retain takes a reference to v if it is reference counted (Arrow values).
func Retain(v any) {
	if r, ok := v.(interface{ Retain() }); ok {
		r.Retain()
	}
}

// Release gives up a reference to v if it is reference counted.
func Release(v any) {
	if r, ok := v.(interface{ Release() }); ok {
		r.Release()
	}
}
