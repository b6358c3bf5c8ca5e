package adapt

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
)

// Processes is the Provider of workers as processes of this machine:
// Command (a `dusk worker` with its flags, --name left out) run once per
// worker, named Prefix-1, Prefix-2, ... Stopping sends SIGTERM, on which a
// worker retires: it hands its results on, then exits.
type Processes struct {
	Command []string
	Prefix  string
	// Output, if set, receives the workers' standard output and error.
	Output io.Writer

	mu      sync.Mutex
	started int
	running map[string]*exec.Cmd
}

// Workers names the processes started, not stopped and not exited.
func (p *Processes) Workers() ([]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.running))
	for name := range p.running {
		out = append(out, name)
	}
	slices.Sort(out)
	return out, nil
}

// Start runs n more workers.
func (p *Processes) Start(_ context.Context, n int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running == nil {
		p.running = map[string]*exec.Cmd{}
	}
	for range n {
		p.started++
		name := p.Prefix + "-" + strconv.Itoa(p.started)
		args := append(slices.Clone(p.Command[1:]), "--name", name)
		cmd := exec.Command(p.Command[0], args...)
		cmd.Stdout, cmd.Stderr = p.Output, p.Output
		// The workers go with the process that started them.
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("start worker %s: %w", name, err)
		}
		p.running[name] = cmd
		go func() {
			cmd.Wait()
			p.mu.Lock()
			if p.running[name] == cmd {
				delete(p.running, name)
			}
			p.mu.Unlock()
		}()
	}
	return nil
}

// Stop sends SIGTERM to the named workers; they retire and exit.
func (p *Processes) Stop(_ context.Context, names []string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, name := range names {
		if cmd, ok := p.running[name]; ok {
			cmd.Process.Signal(syscall.SIGTERM)
			delete(p.running, name)
		}
	}
	return nil
}

// Close stops every worker and waits for none: each retires on its own.
func (p *Processes) Close() {
	names, _ := p.Workers()
	p.Stop(context.Background(), names)
}
