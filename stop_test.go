package dusk

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// spaceChildEnv makes the test binary a program that starts a local
// cluster with its workers' directories under the directory it names,
// says "ready" and waits to be stopped (or for its standard input to
// close): a user's program that does not handle signals itself.
const spaceChildEnv = "DUSK_TEST_SPACE_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(spaceChildEnv); dir != "" {
		c, err := NewClient(context.Background(), Workers(2), LocalDirectory(dir), Dashboard("none"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin) // until the test lets go of it, or signals
		c.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestStoppedClustersLeaveNoDirectories: a program's local cluster
// stopped by SIGTERM or SIGINT removes its workers' directories and the
// program still ends by the signal; one killed outright leaves them, and
// the next cluster on that directory purges them.
func TestStoppedClustersLeaveNoDirectories(t *testing.T) {
	dir := t.TempDir()
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), spaceChildEnv+"="+dir)
		if _, err := cmd.StdinPipe(); err != nil { // held open: the program waits on it
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line := bufio.NewScanner(out); !line.Scan() || line.Text() != "ready" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the program did not start its cluster: %q", line.Text())
		}
		return cmd
	}
	spaces := func() []string {
		got, _ := filepath.Glob(filepath.Join(dir, "dusk-worker-*"))
		return got
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := start()
		if n := len(spaces()); n != 2 {
			t.Errorf("%d worker directories while the cluster runs, want 2", n)
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != sig {
			t.Errorf("after %v the program ended with %v, want the signal", sig, err)
		}
		if left := spaces(); len(left) > 0 {
			t.Errorf("after %v: directories left %v", sig, left)
		}
	}

	cmd := start()
	cmd.Process.Kill()
	cmd.Wait()
	if n := len(spaces()); n != 2 {
		t.Fatalf("a killed program left %d directories, want its 2", n)
	}
	c, err := NewClient(context.Background(), Workers(1), LocalDirectory(dir), Dashboard("none"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(spaces()); n != 1 {
		t.Errorf("%d directories once a new cluster runs, want its own 1", n)
	}
	c.Close()
	if left := spaces(); len(left) > 0 {
		t.Errorf("after Close: directories left %v", left)
	}
}
