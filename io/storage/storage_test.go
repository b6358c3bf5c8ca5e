package storage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestList(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"2014-01.csv", "2014-02.csv", "2015-01.csv", "sub/a.csv", "sub/b.csv", ".hidden", "_SUCCESS", "sub/.DS_Store"} {
		path := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"2014-*.csv", []string{"2014-01.csv", "2014-02.csv"}},
		{"2015-01.csv", []string{"2015-01.csv"}},
		{"sub", []string{"sub/a.csv", "sub/b.csv"}},
		{"", []string{"2014-01.csv", "2014-02.csv", "2015-01.csv", "sub/a.csv", "sub/b.csv"}},
	}
	for _, tt := range tests {
		files, err := List(filepath.Join(dir, tt.pattern))
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		var got []string
		for _, f := range files {
			rel, _ := filepath.Rel(dir, f.Path)
			got = append(got, filepath.ToSlash(rel))
			if f.Size != 1 {
				t.Errorf("%s: size %d", f.Path, f.Size)
			}
		}
		if len(got) != len(tt.want) {
			t.Fatalf("%q: %v, want %v", tt.pattern, got, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Fatalf("%q: %v, want %v", tt.pattern, got, tt.want)
			}
		}
	}
	if _, err := List(filepath.Join(dir, "2016-*.csv")); !errors.Is(err, ErrNoMatch) {
		t.Fatalf("no match: err = %v, want ErrNoMatch", err)
	}
}
