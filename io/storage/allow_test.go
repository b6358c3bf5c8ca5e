package storage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Paths under the allowed prefixes pass; any other, or one that leads out
// through "..", a link, or a look-alike name, is refused naming the rules.
func TestAllowOnly(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "b", "ab"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, d, "x.csv"), []byte("x\n1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "b"), filepath.Join(dir, "a", "link")); err != nil {
		t.Fatal(err)
	}
	if err := AllowOnly([]string{filepath.Join(dir, "a"), "s3://bucket/team/"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { AllowOnly(nil) })
	for _, c := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(dir, "a", "x.csv"), true},
		{filepath.Join(dir, "a", "new", "y.csv"), true}, // not written yet
		{"file://" + filepath.Join(dir, "a", "x.csv"), true},
		{"s3://bucket/team/data/x.parquet?region=eu", true},
		{filepath.Join(dir, "b", "x.csv"), false},
		{filepath.Join(dir, "ab", "x.csv"), false},
		{filepath.Join(dir, "a", "..", "b", "x.csv"), false},
		{filepath.Join(dir, "a", "link", "x.csv"), false},
		{"file://" + filepath.Join(dir, "b", "x.csv"), false},
		{"s3://bucket/other/x", false},
		{"s3://bucket/teamx/x", false},
		{"gs://bucket/team/x", false},
		{"/etc/passwd", false},
	} {
		_, _, err := resolve(t.Context(), c.path)
		if c.ok != (err == nil) || !c.ok && !errors.Is(err, ErrNotAllowed) {
			t.Errorf("%s: %v", c.path, err)
		}
	}
	// A glob whose matches lead out through a link is refused too.
	if _, err := Datums(filepath.Join(dir, "a", "*", "x.csv")); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("a glob through a link: %v", err)
	}
	if _, err := Datums(filepath.Join(dir, "a", "*.csv")); err != nil {
		t.Errorf("a glob inside: %v", err)
	}
	if _, err := Create(filepath.Join(dir, "b", "out.csv"), true); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("a write outside: %v", err)
	}
}
