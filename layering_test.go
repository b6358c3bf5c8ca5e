package dusk

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/duskdata/dusk"

// ruleMarker opens the sentence of a package's doc comment that says what
// it must never import, directly or through other packages ("Must never
// import directly:" checks its own imports alone). The sentence
// ends at its first period, colon or semicolon; its items are separated by
// commas, "or" and "and", and a parenthesis names what the item before it
// means. An item is a path of the module (covering the packages below it),
// a name in phrases, "anything outside the standard library", or "anything
// but" / "anything of Dusk but" followed by what alone is allowed.
const ruleMarker = "Must never import"

// phrases are the items of a rule that are not paths of the module: module
// paths are written as they are ("scheduler/server"), anything else with a
// dot in its first element ("google.golang.org/grpc").
var phrases = map[string][]string{
	"transport":        {"internal/transport", "google.golang.org/grpc"},
	"grpc":             {"google.golang.org/grpc"},
	"collections":      {"collections", "dataframe", "bag", "array"},
	"standard library": {"std"},
	"arrow":            {"github.com/apache/arrow"},
}

// pureCores are the state machines that must stay pure: no goroutines,
// clocks, files or locks, so that a simulation or a scenario file drives
// them exactly.
var pureCores = []string{"scheduler", "worker"}

// impure are what a pure core's files must not import or call.
var (
	impureImports = []string{"os", "sync", "sync/atomic", "net", "net/http", "io/fs"}
	impureCalls   = []string{"time.Now", "time.Since", "time.Until", "time.Sleep", "time.After",
		"time.AfterFunc", "time.Tick", "time.NewTicker", "time.NewTimer"}
)

// rule is what one package must never import: forbid lists paths (module
// paths relative to the module); allow, when set, is all it may import
// (modulePart: all it may import of the module, anything else allowed).
type rule struct {
	direct     bool // its own imports alone
	forbid     []string
	allow      []string
	allowSet   bool
	modulePart bool
}

// TestLayering checks every package of the module against the rule its doc
// comment states (every package states one) and the pure cores against
// pureCores' rules.
func TestLayering(t *testing.T) {
	pkgs := modulePackages(t)
	for _, name := range sortedKeys(pkgs) {
		p := pkgs[name]
		if p.rule == "" {
			t.Errorf("%s: its doc comment says nothing of what it must never import (%q)", orRoot(name), ruleMarker)
			continue
		}
		r, err := parseRule(p.rule, pkgs)
		if err != nil {
			t.Errorf("%s: %v", orRoot(name), err)
			continue
		}
		deps := closure(pkgs, name)
		if r.direct {
			deps = p.imports
		}
		for _, dep := range deps {
			if why := r.breaks(dep); why != "" {
				t.Errorf("%s imports %s (directly or through its imports), which its rule %q forbids: %s",
					orRoot(name), dep, p.rule, why)
			}
		}
	}
	for _, core := range pureCores {
		checkPure(t, core)
	}
}

// testHelpers are the packages that exist for tests: fixtures, simulators
// and suites. Only test files import them, so that no binary carries them
// and a reader knows the ground floor from the scaffolding.
var testHelpers = []string{"cmd/dusktest", "collections/testcluster", "internal/transport/transporttest",
	"internal/parquettest", "internal/s3test", "internal/browsertest", "io/internal/iotest",
	"internal/codec/codectest", "internal/kernel/typetest", "internal/memcheck", "internal/gpuemu", "scheduler/sim", "internal/hosts"}

// TestHelpersForTestsOnly checks that no package's own files import a test
// helper (helpers may import each other), and that every package named as
// a helper is ("…test") is listed in testHelpers.
func TestHelpersForTestsOnly(t *testing.T) {
	pkgs := modulePackages(t)
	helper := func(name string) bool { return slices.Contains(testHelpers, name) }
	for _, name := range sortedKeys(pkgs) {
		if strings.HasSuffix(name, "test") && !helper(name) {
			t.Errorf("%s is named as a test helper but is not in testHelpers", name)
		}
		if helper(name) {
			continue
		}
		for _, dep := range pkgs[name].imports {
			if rel, ok := strings.CutPrefix(dep, module+"/"); ok && helper(rel) {
				t.Errorf("%s imports the test helper %s in a file that is not a test", orRoot(name), rel)
			}
		}
	}
	for _, h := range testHelpers {
		if _, ok := pkgs[h]; !ok {
			t.Errorf("testHelpers names %s, which is no package of the module", h)
		}
	}
}

// TestInternalIsGround checks that internal/ is the ground floor only:
// none of its packages but the test helpers imports a package of the
// module outside internal/, graph apart (the task graph is data every
// floor speaks). Drivers live beside the cores they drive
// (scheduler/server, worker/process), the daemons in cmd/daemon.
func TestInternalIsGround(t *testing.T) {
	pkgs := modulePackages(t)
	for _, name := range sortedKeys(pkgs) {
		if !strings.HasPrefix(name, "internal/") || slices.Contains(testHelpers, name) {
			continue
		}
		for _, dep := range pkgs[name].imports {
			rel, ok := strings.CutPrefix(dep, module+"/")
			if !ok && dep == module {
				rel, ok = "the root package", true
			}
			if ok && rel != "graph" && !strings.HasPrefix(rel, "internal/") {
				t.Errorf("%s imports %s: internal/ is the ground floor, which imports nothing above it", name, rel)
			}
		}
	}
}

// TestParseRule checks the rule sentences' grammar, the standard library's
// io apart from Dusk's io included.
func TestParseRule(t *testing.T) {
	pkgs := map[string]*pkgInfo{"io": {}, "io/csv": {}, "scheduler": {}, "internal/kernel": {}, "graph": {}, "internal/transport": {}}
	tests := []struct {
		rule       string
		ok, banned []string
	}{
		{"scheduler, a transport (internal/transport, gRPC), or the collections",
			[]string{"io", "net", module + "/graph"},
			[]string{module + "/scheduler", module + "/internal/transport/grpcnet", "google.golang.org/grpc/codes", module + "/bag"}},
		{"io", []string{"io", "io/fs"}, []string{module + "/io", module + "/io/csv"}},
		{"anything outside the standard library", []string{"io", "unicode/utf8"}, []string{module + "/graph", "github.com/apache/arrow/go/v15/arrow"}},
		{"anything but the standard library, Arrow and internal/kernel",
			[]string{"io", "github.com/apache/arrow/go/v15/arrow", module + "/internal/kernel"},
			[]string{module + "/graph", "github.com/cespare/xxhash/v2"}},
		{"anything of Dusk but graph", []string{"io", "github.com/cespare/xxhash/v2", module + "/graph"}, []string{module + "/io"}},
		{"anything of Dusk", []string{"io", "google.golang.org/grpc"}, []string{module + "/graph", module}},
		{"directly scheduler", []string{"io"}, []string{module + "/scheduler"}},
	}
	for _, tt := range tests {
		r, err := parseRule(tt.rule, pkgs)
		if err != nil {
			t.Errorf("%q: %v", tt.rule, err)
			continue
		}
		for _, dep := range tt.ok {
			if why := r.breaks(dep); why != "" {
				t.Errorf("%q forbids %s (%s)", tt.rule, dep, why)
			}
		}
		for _, dep := range tt.banned {
			if r.breaks(dep) == "" {
				t.Errorf("%q allows %s", tt.rule, dep)
			}
		}
	}
	if _, err := parseRule("scheduler, the moon", pkgs); err == nil {
		t.Error("a rule naming an unknown item parsed")
	}
}

// parseRule reads the items of a rule sentence.
func parseRule(sentence string, pkgs map[string]*pkgInfo) (rule, error) {
	var r rule
	s := strings.ToLower(strings.Join(strings.Fields(sentence), " "))
	s, r.direct = strings.CutPrefix(s, "directly ")
	if s == "anything of dusk" {
		r.allowSet, r.modulePart = true, true
		return r, nil
	}
	for _, lead := range []string{"anything of dusk but ", "anything but "} {
		if rest, ok := strings.CutPrefix(s, lead); ok {
			r.allowSet, r.modulePart = true, lead == "anything of dusk but "
			s = rest
		}
	}
	if s == "anything outside the standard library" {
		r.allowSet, s = true, "the standard library"
	}
	items, err := splitItems(s)
	if err != nil {
		return r, err
	}
	for _, it := range items {
		paths, err := resolve(it, pkgs)
		if err != nil {
			return r, err
		}
		if r.allowSet {
			r.allow = append(r.allow, paths...)
		} else {
			r.forbid = append(r.forbid, paths...)
		}
	}
	return r, nil
}

// splitItems splits a rule's list at commas, "or" and "and" outside
// parentheses; "x (a, b)" gives x, a and b.
func splitItems(s string) ([]string, error) {
	var items []string
	depth, start := 0, 0
	flush := func(end int) {
		for _, part := range strings.FieldsFunc(s[start:end], func(r rune) bool { return r == '(' || r == ')' }) {
			for _, w := range strings.Split(strings.ReplaceAll(strings.ReplaceAll(" "+part+" ", " or ", ","), " and ", ","), ",") {
				w = strings.TrimSpace(w)
				for _, article := range []string{"the ", "a ", "an ", "any "} {
					w = strings.TrimPrefix(w, article)
				}
				if w != "" {
					items = append(items, w)
				}
			}
		}
		start = end + 1
	}
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced parentheses in %q", s)
			}
		case ',':
			if depth == 0 {
				flush(i)
			}
		}
	}
	flush(len(s))
	return items, nil
}

// resolve turns an item into import paths: module paths stay relative.
func resolve(item string, pkgs map[string]*pkgInfo) ([]string, error) {
	if paths, ok := phrases[item]; ok {
		return paths, nil
	}
	for p := range pkgs {
		if p == item || strings.HasPrefix(p, item+"/") {
			return []string{item}, nil
		}
	}
	return nil, fmt.Errorf("its rule names %q, which is neither a package of the module nor a phrase the layering test knows", item)
}

// breaks says why importing dep (a full import path) breaks r, or "".
func (r rule) breaks(dep string) string {
	rel, own := strings.CutPrefix(dep, module+"/")
	if dep == module {
		rel, own = "", true
	}
	std := !own && !strings.Contains(strings.Split(dep, "/")[0], ".")
	covers := func(pattern string) bool {
		switch {
		case pattern == "std":
			return std
		case own && !strings.Contains(strings.Split(pattern, "/")[0], "."):
			return rel == pattern || strings.HasPrefix(rel, pattern+"/")
		case !own && !std:
			return dep == pattern || strings.HasPrefix(dep, pattern+"/")
		}
		return false
	}
	if r.allowSet {
		if r.modulePart && !own || slices.ContainsFunc(r.allow, covers) {
			return ""
		}
		return "not among what it allows"
	}
	if i := slices.IndexFunc(r.forbid, covers); i >= 0 {
		return "it covers " + r.forbid[i]
	}
	return ""
}

// checkPure fails where a core's non-test files start a goroutine, read a
// clock, or import files, locks or the network.
func checkPure(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); slices.Contains(impureImports, p) {
				t.Errorf("%s: the %s core imports %s; it must stay pure", fset.Position(imp.Pos()), dir, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: the %s core starts a goroutine; it must stay pure", fset.Position(n.Pos()), dir)
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && slices.Contains(impureCalls, x.Name+"."+n.Sel.Name) {
					t.Errorf("%s: the %s core calls %s.%s; it must stay pure", fset.Position(n.Pos()), dir, x.Name, n.Sel.Name)
				}
			}
			return true
		})
	}
}

type pkgInfo struct {
	imports []string
	rule    string // the list of its doc comment's ruleMarker sentence
}

// modulePackages maps each package of the module (relative path, "" for the
// root) to its non-test imports and its rule.
func modulePackages(t *testing.T) map[string]*pkgInfo {
	t.Helper()
	out := map[string]*pkgInfo{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); path != "." && err == nil {
			return filepath.SkipDir // a module of its own (internal/difftest)
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
		info := &pkgInfo{imports: p.Imports}
		for _, f := range p.GoFiles {
			if r := docRule(t, filepath.Join(path, f)); r != "" {
				info.rule = r
			}
		}
		out[rel] = info
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

// docRule returns the list of the ruleMarker sentence in a file's package
// doc comment, or "".
func docRule(t *testing.T, path string) string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		return ""
	}
	_, rest, ok := strings.Cut(strings.Join(strings.Fields(f.Doc.Text()), " "), ruleMarker)
	if !ok {
		return ""
	}
	if d, ok := strings.CutPrefix(rest, " directly:"); ok {
		rest = "directly " + d
	} else if rest, ok = strings.CutPrefix(rest, ":"); !ok {
		return "" // "Must never be imported", or prose
	}
	if i := strings.IndexAny(rest, ".:;"); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSpace(rest)
}

// closure lists everything pkg imports, following the module's own packages.
func closure(pkgs map[string]*pkgInfo, pkg string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		info := pkgs[p]
		if info == nil {
			return
		}
		for _, dep := range info.imports {
			if seen[dep] {
				continue
			}
			seen[dep] = true
			if dep == module {
				walk("")
			} else if rel, ok := strings.CutPrefix(dep, module+"/"); ok {
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

func sortedKeys(m map[string]*pkgInfo) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func orRoot(name string) string {
	if name == "" {
		return "the root package (dusk)"
	}
	return name
}
