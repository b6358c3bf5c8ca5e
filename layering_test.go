package dusk

import (
	"go/build"
	"io/fs"

	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/duskdata/dusk"

// layers lists, for each package (and the packages below it), the packages
// it must never import, directly or through others: the collections never
// reach the scheduler or the workers, and the cores never reach a network.
var layers = []struct {
	pkg    string
	forbid []string
}{
	{"dataframe", []string{"scheduler", "worker", "internal/cluster", "internal/transport"}},
	{"bag", []string{"scheduler", "worker", "internal/cluster", "internal/transport"}},
	{"array", []string{"scheduler", "worker", "internal/cluster", "internal/transport"}},
	{"collections", []string{"scheduler", "worker", "internal/cluster", "internal/transport"}},
	{"scheduler", []string{"internal/transport", "internal/cluster", "worker", "net", "net/http", "google.golang.org/grpc"}},
	{"worker", []string{"internal/transport", "internal/cluster", "scheduler", "net", "net/http", "google.golang.org/grpc"}},
	{"graph", []string{"scheduler", "worker", "collections", "dataframe", "bag", "array", "io", "internal"}},
	{"io", []string{"scheduler", "worker", "internal/cluster", "internal/transport", "collections", "bag", "array", "dataframe"}},
	{"internal/kernel", []string{"dataframe", "collections", "io", "bag", "array", "scheduler", "worker", "internal/cluster", "internal/transport", "internal/codec", "internal/registry"}},
	{"internal/protocol", []string{"internal/transport", "internal/cluster", "scheduler", "worker"}},
	{"internal/registry", []string{"internal/transport", "internal/cluster", "scheduler", "worker"}},
	{"internal/transport", []string{"internal/cluster", "scheduler", "worker", "collections", "dataframe"}},
	{"internal/s3test", []string{"scheduler", "worker", "internal/cluster", "collections", "dataframe", "bag", "array"}},
	{"internal/cache", []string{"scheduler", "worker", "internal/cluster", "internal/transport", "collections", "dataframe", "bag", "array"}},
	{"internal/codec", []string{"scheduler", "worker", "internal/cluster", "internal/transport", "collections", "dataframe!", "bag", "array"}},
	{"internal/membership", []string{"scheduler", "worker", "internal/cluster", "collections", "dataframe", "bag", "array"}},
	{"internal/daemon", []string{"collections", "dataframe", "bag", "array"}},
	{"gpu", []string{"scheduler", "worker", "internal/cluster", "internal/transport", "dataframe", "bag", "array"}},
	{"bench", []string{"scheduler", "worker", "internal/cluster", "internal/transport"}},
}

// TestLayering checks the import rules of DESIGN.md and each doc.go on the
// non-test files of every package in the module. A rule "x" covers x and the
// packages below it; "x!" covers x alone.
func TestLayering(t *testing.T) {
	imports := moduleImports(t)
	for _, l := range layers {
		for pkg := range imports {
			if pkg != l.pkg && !strings.HasPrefix(pkg, l.pkg+"/") {
				continue
			}
			for _, dep := range closure(imports, pkg) {
				for _, f := range l.forbid {
					exact := strings.HasSuffix(f, "!")
					f = strings.TrimSuffix(f, "!")
					rel := strings.TrimPrefix(dep, module+"/")
					if rel == f || (!exact && strings.HasPrefix(rel, f+"/")) {
						t.Errorf("%s imports %s (through its dependencies or directly), which the layering forbids", pkg, dep)
					}
				}
			}
		}
	}
}

// moduleImports maps each package of the module (relative path) to the
// imports of its non-test files.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel := filepath.ToSlash(path)
		if rel == "." {
			rel = ""
		}
		out[rel] = p.Imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 10 {
		t.Fatalf("found only %d packages; run from the module root", len(out))
	}
	return out
}

// closure lists everything pkg imports, following the module's own packages.
func closure(imports map[string][]string, pkg string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, dep := range imports[p] {
			if seen[dep] {
				continue
			}
			seen[dep] = true
			if rel, ok := strings.CutPrefix(dep, module+"/"); ok {
				walk(rel)
			}
		}
	}
	walk(pkg)
	deps := make([]string, 0, len(seen))
	for d := range seen {
		deps = append(deps, d)
	}
	sort.Strings(deps)
	return deps
}
