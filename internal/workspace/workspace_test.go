package workspace

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// childEnv makes the test binary a process that opens a space under the
// directory it names, prints the space's path and lives until its
// standard input closes.
const childEnv = "DUSK_WORKSPACE_CHILD"

var held *Space

func TestMain(m *testing.M) {
	if base := os.Getenv(childEnv); base != "" {
		s, err := New(base, "dusk-worker-")
		if err != nil {
			os.Exit(2)
		}
		held = s // reachable, or the collector would close its lock file
		os.Stdout.WriteString(s.Dir + "\n")
		io.Copy(io.Discard, os.Stdin) // until the test lets go of it, or kills it
		os.Exit(0)

	}
	os.Exit(m.Run())
}

// TestPurge: a live process's space survives a purge, a killed process's
// goes with the next New, and Close removes its own; directories that are
// not spaces are left alone.
func TestPurge(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no process locks to tell the dead from the living")
	}
	base := t.TempDir()
	other := filepath.Join(base, "dusk-worker-not-a-space")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	child := func() (*exec.Cmd, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+base)
		if _, err := cmd.StdinPipe(); err != nil { // held open: the child waits on it
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line := bufio.NewScanner(out)
		if !line.Scan() {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the child made no space")
		}
		return cmd, line.Text()
	}
	live, liveDir := child()
	defer func() { live.Process.Kill(); live.Wait() }()
	dead, deadDir := child()
	if err := os.WriteFile(filepath.Join(deadDir, "spilled"), make([]byte, 1<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	dead.Process.Kill()
	dead.Wait()

	mine, err := New(base, "dusk-worker-")
	if err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{liveDir: true, deadDir: false, other: true, mine.Dir: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", dir, err == nil, want)
		}
	}
	if got := Purge(base, "dusk-worker-"); len(got) != 0 {
		t.Errorf("a second purge removed %v", got)
	}
	if err := mine.Close(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(base)
	var names []string
	for _, e := range entries {
		names = append(names, filepath.Join(base, e.Name()))
	}
	slices.Sort(names)
	want := []string{liveDir, other}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("left %v, want %v", names, want)
	}
}
