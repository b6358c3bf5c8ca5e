package transport

import (
	"context"
	"fmt"

	"github.com/duskdata/dusk/internal/protocol"
)

// RefusedError is the scheduler's refusal of a peer, in its welcome.
type RefusedError struct{ Why string }

func (e *RefusedError) Error() string { return e.Why }

// Connect opens a stream to the scheduler at addr, sends hello and checks
// the scheduler's welcome, which refuses a peer of another version. ctx
// bounds the connecting; the stream outlives it.
func Connect(ctx context.Context, net Network, addr string, hello protocol.Msg) (Stream, *protocol.Welcome, error) {
	fail := func(err error) (Stream, *protocol.Welcome, error) {
		return nil, nil, fmt.Errorf("connect to scheduler %s: %w", addr, err)
	}
	conn, err := net.Dial(ctx, addr)
	if err != nil {
		return fail(err)
	}
	st, err := conn.OpenStream(ctx)
	if err != nil {
		return fail(err)
	}
	if err := st.Send([]protocol.Msg{hello}); err != nil {
		st.Close()
		return fail(err)
	}
	type answer struct {
		msgs []protocol.Msg
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		msgs, err := st.Recv()
		got <- answer{msgs, err}
	}()
	var a answer
	select {
	case a = <-got:
	case <-ctx.Done():
		st.Close()
		return fail(fmt.Errorf("no answer to hello: %w", ctx.Err()))
	}
	if a.err != nil || len(a.msgs) == 0 {
		st.Close()
		return fail(fmt.Errorf("no answer to hello: %v", a.err))
	}
	w, ok := a.msgs[0].(*protocol.Welcome)
	if !ok {
		st.Close()
		return fail(fmt.Errorf("unexpected answer %T", a.msgs[0]))
	}
	if w.Err != "" {
		st.Close()
		return fail(&RefusedError{Why: w.Err})
	}
	if len(a.msgs) > 1 {
		// What came with the welcome (a worker's first tasks) is read first.
		return &unread{Stream: st, first: a.msgs[1:]}, w, nil
	}
	return st, w, nil
}

// unread is a stream whose first Recv returns messages already read.
type unread struct {
	Stream
	first []protocol.Msg
}

func (u *unread) Recv() ([]protocol.Msg, error) {
	if m := u.first; m != nil {
		u.first = nil
		return m, nil
	}
	return u.Stream.Recv()
}
