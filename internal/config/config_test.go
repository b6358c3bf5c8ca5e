package config

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// list is a repeatable flag, as --allow-path.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }
func (l *list) Reset()             { *l = nil }

type testFlags struct {
	fs      *flag.FlagSet
	threads *int
	limit   *string
	timeout *time.Duration
	nanny   *bool
	paths   list
	ca      *string
}

func workerFlags() *testFlags {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	t := &testFlags{fs: fs,
		threads: fs.Int("nthreads", 2, ""), limit: fs.String("memory-limit", "", ""),
		timeout: fs.Duration("death-timeout", time.Minute, ""), nanny: fs.Bool("no-nanny", false, ""),
		ca: fs.String("tls-ca-file", "", "")}
	fs.Var(&t.paths, "allow-path", "")
	return t
}

func init() {
	Register("worker", func() *flag.FlagSet { return workerFlags().fs })
	Register("scheduler", func() *flag.FlagSet {
		fs := flag.NewFlagSet("scheduler", flag.ContinueOnError)
		fs.Int("port", 8786, "")
		fs.String("tls-ca-file", "", "")
		return fs
	})
}

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "dusk.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A flag beats the environment, which beats the file, which beats the
// default; a command's section beats the file's top level; every value
// says where it came from.
func TestPrecedence(t *testing.T) {
	file := write(t, `
tls-ca-file: /etc/dusk/ca.pem
port: 9000          # the scheduler's: ignored by a worker
worker:
  nthreads: 8
  memory-limit: 4GiB
  death-timeout: 2m
  allow-path: [/data, s3://bucket/team/]
  tls-ca-file: /etc/dusk/worker-ca.pem
`)
	for _, c := range []struct {
		name  string
		args  []string
		env   []string
		check func(*testFlags) bool
		from  map[string]string
	}{
		{"file", []string{"--config", file}, nil,
			func(f *testFlags) bool {
				return *f.threads == 8 && *f.limit == "4GiB" && *f.timeout == 2*time.Minute && *f.ca == "/etc/dusk/worker-ca.pem" &&
					strings.Join(f.paths, " ") == "/data s3://bucket/team/" && !*f.nanny
			},
			map[string]string{"nthreads": "file " + file, "no-nanny": "default", "allow-path": "file " + file}},
		{"env over file", []string{"--config=" + file}, []string{"DUSK_NTHREADS=3", "DUSK_ALLOW_PATH=/x,/y", "DUSK_NO_NANNY=true"},
			func(f *testFlags) bool {
				return *f.threads == 3 && *f.limit == "4GiB" && strings.Join(f.paths, " ") == "/x /y" && *f.nanny
			},
			map[string]string{"nthreads": "env DUSK_NTHREADS", "memory-limit": "file " + file, "no-nanny": "env DUSK_NO_NANNY"}},
		{"flag over env", []string{"--nthreads", "5", "--allow-path", "/z"}, []string{"DUSK_CONFIG=" + file, "DUSK_NTHREADS=3"},
			func(f *testFlags) bool {
				return *f.threads == 5 && *f.limit == "4GiB" && strings.Join(f.paths, " ") == "/z"
			},
			map[string]string{"nthreads": "flag", "allow-path": "flag", "death-timeout": "file " + file}},
		{"nothing", nil, []string{"HOME=" + t.TempDir()},
			func(f *testFlags) bool { return *f.threads == 2 && *f.limit == "" && len(f.paths) == 0 },
			map[string]string{"nthreads": "default"}},
	} {
		f := workerFlags()
		got, err := Parse("worker", f.fs, c.args, c.env)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !c.check(f) {
			t.Errorf("%s: nthreads %d, memory-limit %q, paths %v, no-nanny %v", c.name, *f.threads, *f.limit, f.paths, *f.nanny)
		}
		for _, s := range got {
			if want, ok := c.from[s.Flag]; ok && s.From != want {
				t.Errorf("%s: %s from %q, want %q", c.name, s.Flag, s.From, want)
			}
		}
	}
}

// An unknown key, at the top or in a section, is an error naming the key,
// its line and the closest known one; so are values of the wrong shape.
func TestUnknownKeys(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"nthread: 4\n", "line 1: unknown key nthread (did you mean nthreads?)"},
		{"worker:\n  nthreads: 4\n  memory-limt: 2GiB\n", "line 3: unknown key worker.memory-limt (did you mean worker.memory-limit?)"},
		{"scheduler:\n  nthreads: 4\n", "unknown key scheduler.nthreads (a flag of worker, not of scheduler)"},
		{"wrker:\n  nthreads: 4\n", "unknown key wrker (did you mean worker?)"},
		{"zzzzzz: 1\n", "unknown key zzzzzz"},
		{"worker:\n  nthreads: [1, 2]\n", "takes one value"},
		{"worker:\n  nthreads: many\n", "nthreads"},
		{"- a\n- b\n", "want keys and values"},
	} {
		file := write(t, c.text)
		_, err := Parse("worker", workerFlags().fs, []string{"--config", file}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), file) {
			t.Errorf("%q: %v; want %q", c.text, err, c.want)
		}
	}
	if _, err := Parse("worker", workerFlags().fs, []string{"--config", "/nonexistent/dusk.yaml"}, nil); err == nil {
		t.Error("a missing --config file is no error")
	}
	if _, err := Parse("worker", workerFlags().fs, nil, []string{"DUSK_NTHREADS=lots"}); err == nil || !strings.Contains(err.Error(), "DUSK_NTHREADS") {
		t.Errorf("a bad environment value: %v", err)
	}
}

// A flag the command lacks on the command line names the nearest it has,
// and prints no usage; -h prints it.
func TestUnknownFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--nthread", "4"}, "unknown flag --nthread (did you mean --nthreads?); -h lists the flags"},
		{[]string{"-memory-limt=2GiB"}, "unknown flag --memory-limt (did you mean --memory-limit?); -h lists the flags"},
		{[]string{"--zzzzzz"}, "unknown flag --zzzzzz; -h lists the flags"},
	} {
		f := workerFlags()
		var out strings.Builder
		f.fs.SetOutput(&out)
		_, err := Parse("worker", f.fs, c.args, nil)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v; want %q", c.args, err, c.want)
		}
		if out.Len() > 0 {
			t.Errorf("%q printed %q", c.args, out.String())
		}
	}
	f := workerFlags()
	var out strings.Builder
	f.fs.SetOutput(&out)
	if _, err := Parse("worker", f.fs, []string{"-h"}, nil); !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "nthreads") {
		t.Errorf("-h: %v, printed %q", err, out.String())
	}
}
