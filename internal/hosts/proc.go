//go:build linux

package hosts

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// Proc is a process running inside a host.
type Proc struct {
	Host *Host
	name string
	args []string

	cmd    *exec.Cmd
	out    *output
	exited chan struct{}
	err    error // how it exited, once exited is closed
}

// Start runs name with args inside the host, in the test's working
// directory; its standard output and error are kept, and it is killed when
// the test ends.
func (h *Host) Start(name string, args ...string) *Proc {
	h.bed.t.Helper()
	p := &Proc{Host: h, name: name, args: args}
	p.start()
	h.bed.mu.Lock()
	h.bed.procs = append(h.bed.procs, p)
	h.bed.mu.Unlock()
	return p
}

func (p *Proc) start() {
	p.out = &output{}
	p.exited = make(chan struct{})
	p.cmd = p.Host.Command(p.name, p.args...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	// Its own process group, so that a kill reaches what it started (a
	// worker's nanny and its child).
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		p.Host.bed.t.Fatalf("hosts: start %s on %s: %v", p.name, p.Host.Name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		p.out.close()
		close(p.exited)
	}()
}

// Restart starts the process again, with the same arguments, after a Kill
// or an exit.
func (p *Proc) Restart() {
	<-p.exited
	p.start()
}

// Kill ends the process and what it started at once (SIGKILL), and waits
// for it.
func (p *Proc) Kill() { p.signal(syscall.SIGKILL) }

func (p *Proc) signal(s syscall.Signal) {
	select {
	case <-p.exited:
		return
	default:
	}
	syscall.Kill(-p.cmd.Process.Pid, s)
	<-p.exited
}

// Quit ends the process and what it started with SIGQUIT, so that a Go
// program writes its goroutines' stacks first, and waits for it: what a
// hung test shows of where it hung.
func (p *Proc) Quit() { p.signal(syscall.SIGQUIT) }

// Wait waits for the process to exit and returns how it did.
func (p *Proc) Wait(ctx context.Context) error {
	select {
	case <-p.exited:
		return p.err
	case <-ctx.Done():
		return fmt.Errorf("%s on %s still runs: %w", p.name, p.Host.Name, ctx.Err())
	}
}

// Exited is closed when the process exits.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Output is what the process has written so far.
func (p *Proc) Output() string { return p.out.String() }

// WaitFor waits until the process's output holds text, and returns the
// line that holds it. It fails when the process exits first or ctx ends: a
// test waits for what a process says, never for time.
func (p *Proc) WaitFor(ctx context.Context, text string) (string, error) {
	return p.WaitForN(ctx, text, 1)
}

// WaitForN is WaitFor of the text's nth line.
func (p *Proc) WaitForN(ctx context.Context, text string, n int) (string, error) {
	for {
		s, changed, done := p.out.next()
		if line, ok := nthLine(s, text, n); ok {
			return line, nil
		}
		if done {
			return "", fmt.Errorf("%s on %s exited (%v) without writing %q %d times:\n%s", p.name, p.Host.Name, p.err, text, n, tail(s))
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return "", fmt.Errorf("%s on %s never wrote %q %d times: %w\n%s", p.name, p.Host.Name, text, n, ctx.Err(), tail(s))
		}
	}
}

// nthLine is the nth whole line of s that holds text.
func nthLine(s, text string, n int) (string, bool) {
	for line := range strings.Lines(s) {
		if strings.HasSuffix(line, "\n") && strings.Contains(line, text) {
			if n--; n == 0 {
				return strings.TrimSuffix(line, "\n"), true
			}
		}
	}
	return "", false
}

// output gathers a process's output, and tells who waits on it of each
// write.
type output struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed at the next write, or at the end
	done    bool
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.wake()
	return o.b.Write(p)
}

func (o *output) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.done = true
	o.wake()
}

func (o *output) wake() {
	if o.changed != nil {
		close(o.changed)
		o.changed = nil
	}
}

// next returns what has been written, a channel closed at the next
// write, and whether the writing has ended.
func (o *output) next() (string, <-chan struct{}, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.changed == nil {
		o.changed = make(chan struct{})
	}
	return o.b.String(), o.changed, o.done
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// tail is the last lines of s, for a failure's message.
func tail(s string) string {
	const keep = 4000
	if len(s) > keep {
		s = "…" + s[len(s)-keep:]
	}
	return s
}
