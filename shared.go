package dusk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/duskdata/dusk/internal/protocol"
)

// The scheduler keeps named state that every client of the cluster shares,
// as Dask's coordination primitives: a Variable holds one value, a Queue
// many in order, a Lock one holder at a time, an Event a flag to wait for.
// Values travel as JSON. Operations that wait (Variable.Get of an unset
// variable, Queue.Get of an empty queue, Lock.Acquire, Event.Wait) wait on
// the scheduler, not in a loop, and give up when ctx ends.

// shared sends m and returns the scheduler's reply. When ctx ends while the
// request waits on the scheduler, it is cancelled there; if it went through
// before the cancel arrived, its reply is returned as if ctx had not ended,
// so that nothing taken (a queue's item, a lock) is lost.
func (c *Client) shared(ctx context.Context, m *protocol.Shared) (*protocol.SharedReply, error) {
	reply := make(chan protocol.Msg, 1)
	c.mu.Lock()
	c.queryID++
	m.ID = c.queryID
	c.queries[m.ID] = reply
	c.mu.Unlock()
	if err := c.send([]protocol.Msg{m}); err != nil {
		c.mu.Lock()
		delete(c.queries, m.ID)
		c.mu.Unlock()
		return nil, err
	}
	var r *protocol.SharedReply
	select {
	case got := <-reply:
		r = got.(*protocol.SharedReply)
	case <-ctx.Done():
		c.mu.Lock()
		c.queryID++
		cancel := &protocol.Shared{ID: c.queryID, Op: protocol.SharedCancel, Target: m.ID}
		c.mu.Unlock()
		if err := c.send([]protocol.Msg{cancel}); err != nil {
			return nil, err
		}
		select {
		case got := <-reply:
			if r = got.(*protocol.SharedReply); r.Err == "cancelled" {
				return nil, ctx.Err()
			}
		case <-c.closed:
			return nil, c.closedErr()
		}
	case <-c.closed:
		return nil, c.closedErr()
	}
	if r.Err != "" {
		return nil, errors.New(r.Err)
	}
	return r, nil
}

func (c *Client) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		return errors.New("dusk: the client is closed")
	}
	return c.err
}

// Variable is a named value that every client of the cluster sees, like
// Dask's Variable.
type Variable[T any] struct {
	c    *Client
	name string
}

// NewVariable is the variable called name on c's cluster.
func NewVariable[T any](c *Client, name string) *Variable[T] { return &Variable[T]{c: c, name: name} }

// Set gives the variable a value.
func (v *Variable[T]) Set(ctx context.Context, value T) error {
	b, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("dusk: variable %q: encode: %w", v.name, err)
	}
	_, err = v.c.shared(ctx, &protocol.Shared{Op: protocol.SharedVarSet, Name: v.name, Value: b})
	return wrapShared("variable", v.name, err)
}

// Get returns the variable's value, waiting for one if it was never set.
func (v *Variable[T]) Get(ctx context.Context) (T, error) {
	var out T
	r, err := v.c.shared(ctx, &protocol.Shared{Op: protocol.SharedVarGet, Name: v.name})
	if err != nil {
		return out, wrapShared("variable", v.name, err)
	}
	if err := json.Unmarshal(r.Value, &out); err != nil {
		return out, fmt.Errorf("dusk: variable %q: decode into %T: %w", v.name, out, err)
	}
	return out, nil
}

// Delete removes the variable's value.
func (v *Variable[T]) Delete(ctx context.Context) error {
	_, err := v.c.shared(ctx, &protocol.Shared{Op: protocol.SharedVarDelete, Name: v.name})
	return wrapShared("variable", v.name, err)
}

// Queue is a named first-in first-out queue that every client of the
// cluster shares, like Dask's Queue.
type Queue[T any] struct {
	c    *Client
	name string
}

// NewQueue is the queue called name on c's cluster.
func NewQueue[T any](c *Client, name string) *Queue[T] { return &Queue[T]{c: c, name: name} }

// Put adds value at the queue's end.
func (q *Queue[T]) Put(ctx context.Context, value T) error {
	b, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("dusk: queue %q: encode: %w", q.name, err)
	}
	_, err = q.c.shared(ctx, &protocol.Shared{Op: protocol.SharedQueuePut, Name: q.name, Value: b})
	return wrapShared("queue", q.name, err)
}

// Get takes the value at the queue's head, waiting for one while it is empty.
func (q *Queue[T]) Get(ctx context.Context) (T, error) {
	var out T
	r, err := q.c.shared(ctx, &protocol.Shared{Op: protocol.SharedQueueGet, Name: q.name})
	if err != nil {
		return out, wrapShared("queue", q.name, err)
	}
	if err := json.Unmarshal(r.Value, &out); err != nil {
		return out, fmt.Errorf("dusk: queue %q: decode into %T: %w", q.name, out, err)
	}
	return out, nil
}

// Len is how many values the queue holds.
func (q *Queue[T]) Len(ctx context.Context) (int, error) {
	r, err := q.c.shared(ctx, &protocol.Shared{Op: protocol.SharedQueueLen, Name: q.name})
	if err != nil {
		return 0, wrapShared("queue", q.name, err)
	}
	return r.N, nil
}

// Lock is a named lock that one Lock value on one client holds at a time,
// like Dask's Lock. A client that is lost lets go of the locks it held.
type Lock struct {
	c     *Client
	name  string
	token string // tells this Lock from others of the same name
}

// NewLock is a handle on the lock called name on c's cluster.
func NewLock(c *Client, name string) *Lock {
	var b [8]byte
	rand.Read(b[:])
	return &Lock{c: c, name: name, token: hex.EncodeToString(b[:])}
}

// Acquire takes the lock, waiting while another holds it.
func (l *Lock) Acquire(ctx context.Context) error {
	_, err := l.c.shared(ctx, &protocol.Shared{Op: protocol.SharedLockAcquire, Name: l.name, Value: []byte(l.token)})
	return wrapShared("lock", l.name, err)
}

// Release lets the lock go; it is an error if this Lock does not hold it.
func (l *Lock) Release(ctx context.Context) error {
	_, err := l.c.shared(ctx, &protocol.Shared{Op: protocol.SharedLockRelease, Name: l.name, Value: []byte(l.token)})
	return wrapShared("lock", l.name, err)
}

// Event is a named flag that clients set, clear and wait for, like Dask's
// Event.
type Event struct {
	c    *Client
	name string
}

// NewEvent is the event called name on c's cluster.
func NewEvent(c *Client, name string) *Event { return &Event{c: c, name: name} }

// Set sets the flag and wakes everyone waiting for it.
func (e *Event) Set(ctx context.Context) error {
	_, err := e.c.shared(ctx, &protocol.Shared{Op: protocol.SharedEventSet, Name: e.name})
	return wrapShared("event", e.name, err)
}

// Clear unsets the flag.
func (e *Event) Clear(ctx context.Context) error {
	_, err := e.c.shared(ctx, &protocol.Shared{Op: protocol.SharedEventClear, Name: e.name})
	return wrapShared("event", e.name, err)
}

// Wait returns once the flag is set.
func (e *Event) Wait(ctx context.Context) error {
	_, err := e.c.shared(ctx, &protocol.Shared{Op: protocol.SharedEventWait, Name: e.name})
	return wrapShared("event", e.name, err)
}

// IsSet reports whether the flag is set.
func (e *Event) IsSet(ctx context.Context) (bool, error) {
	r, err := e.c.shared(ctx, &protocol.Shared{Op: protocol.SharedEventIsSet, Name: e.name})
	if err != nil {
		return false, wrapShared("event", e.name, err)
	}
	return r.Found, nil
}

// wrapShared names the primitive an error came from; the context's own
// errors stay themselves for errors.Is.
func wrapShared(kind, name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("dusk: %s %q: %w", kind, name, err)
}
