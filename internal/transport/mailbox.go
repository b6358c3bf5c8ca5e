package transport

import (
	"sync"

	"github.com/duskdata/dusk/internal/protocol"
)

// Mailbox is an unbounded queue of messages: a sender never waits for its
// reader, so two loops that send to each other cannot deadlock. Every
// Stream implementation queues through one.
type Mailbox struct {
	mu     sync.Mutex
	q      []protocol.Msg
	closed bool
	ready  chan struct{} // has a token while q is non-empty or closed
}

// NewMailbox returns an empty, open mailbox.
func NewMailbox() *Mailbox { return &Mailbox{ready: make(chan struct{}, 1)} }

// Put queues msgs, or fails with ErrClosed.
func (m *Mailbox) Put(msgs []protocol.Msg) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	m.q = append(m.q, msgs...)
	m.mu.Unlock()
	m.signal()
	return nil
}

// Get returns everything queued, waiting for at least one message. Once the
// mailbox is closed and drained it returns ErrClosed.
func (m *Mailbox) Get() ([]protocol.Msg, error) {
	for {
		m.mu.Lock()
		if len(m.q) > 0 {
			q := m.q
			m.q = nil
			m.mu.Unlock()
			return q, nil
		}
		if m.closed {
			m.mu.Unlock()
			m.signal() // wake any other reader too
			return nil, ErrClosed
		}
		m.mu.Unlock()
		<-m.ready
	}
}

// Close ends the mailbox: Put fails, Get drains what is queued.
func (m *Mailbox) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.signal()
}

func (m *Mailbox) signal() {
	select {
	case m.ready <- struct{}{}:
	default:
	}
}
