package dusk_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeParams are the names README snippets use without making them, with
// the types they stand for: each snippet gets those it uses as parameters.
var readmeParams = []struct{ name, typ string }{
	{"ctx", "context.Context"},
	{"client", "*dusk.Client"},
	{"files", "[]string"},
	{"frame", "*dataframe.Frame"},
	{"addr", "string"},
	{"futs", "[]*dusk.Future[int]"},
	{"readFile", "dusk.Func[string, int]"},
}

// readmeImports are the packages README snippets name.
var readmeImports = map[string]string{
	"context": "context", "fmt": "fmt", "os": "os", "errors": "errors", "time": "time",
	"dusk": "github.com/duskdata/dusk", "dataframe": "github.com/duskdata/dusk/dataframe",
	"bag": "github.com/duskdata/dusk/bag", "array": "github.com/duskdata/dusk/array",
}

var importBlock = regexp.MustCompile(`(?s)^import \(.*?\)\n`)

// Every Go snippet of the README compiles: each becomes the body of a
// function, whose parameters are the names it uses without making them,
// in a package that the go command builds from an overlay.
func TestREADMECompiles(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)\n```go\n(.*?)\n```").FindAllSubmatchIndex(readme, -1)
	if len(blocks) == 0 {
		t.Fatal("no Go snippets in the README")
	}
	dir, tmp := filepath.Join(mustAbs(t, "."), "internal", "readmecheck"), t.TempDir()
	overlay := map[string]string{}
	for i, b := range blocks {
		line := strings.Count(string(readme[:b[2]]), "\n") + 1
		src, err := snippetFile(i, line, importBlock.ReplaceAllString(string(readme[b[2]:b[3]]), ""))
		if err != nil {
			t.Fatalf("README.md:%d: %v", line, err)
		}
		name := fmt.Sprintf("snippet%02d.go", i)
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		overlay[filepath.Join(dir, name)] = filepath.Join(tmp, name)
	}
	js, _ := json.Marshal(map[string]any{"Replace": overlay})
	if err := os.WriteFile(filepath.Join(tmp, "overlay.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "build", "-o", os.DevNull, "-overlay", filepath.Join(tmp, "overlay.json"), "./internal/readmecheck").CombinedOutput()
	if err != nil {
		t.Fatalf("the README's snippets do not compile:\n%s", out)
	}
}

// snippetFile is a Go file with the snippet as a function's body; a line
// directive points errors at the README.
func snippetFile(i, line int, body string) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+body+"\n}", parser.SkipObjectResolution)
	if err != nil {
		return "", err
	}
	declared, used, pkgs := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var names []string // declared, in order
	declare := func(id *ast.Ident) {
		if id.Name != "_" && !declared[id.Name] {
			declared[id.Name] = true
			names = append(names, id.Name)
		}
	}
	// What the snippet declares at its top level, each named once after it
	// so that an unused one is no error.
	for _, st := range f.Decls[0].(*ast.FuncDecl).Body.List {
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE {
				for _, l := range st.Lhs {
					declare(l.(*ast.Ident))
				}
			}
		case *ast.DeclStmt:
			for _, s := range st.Decl.(*ast.GenDecl).Specs {
				if vs, ok := s.(*ast.ValueSpec); ok {
					for _, id := range vs.Names {
						declare(id)
					}
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && readmeImports[x.Name] != "" {
				pkgs[x.Name] = true
			}
		case *ast.Ident:
			used[n.Name] = true
		}
		return true
	})
	var params []string
	for _, p := range readmeParams {
		if used[p.name] && !declared[p.name] {
			params = append(params, p.name+" "+p.typ)
			pkgs[strings.SplitN(strings.TrimLeft(p.typ, "*[]"), ".", 2)[0]] = true
		}
	}
	var b strings.Builder
	b.WriteString("package readmecheck\n\nimport (\n")
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range pkgs {
			if readmeImports[p] != "" && !yield(p) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, "\t%q\n", readmeImports[p])
	}
	fmt.Fprintf(&b, ")\n\nfunc snippet%02d(%s) {\n//line README.md:%d\n%s\n", i, strings.Join(params, ", "), line, body)
	for _, n := range names {
		fmt.Fprintf(&b, "\t_ = %s\n", n)
	}
	b.WriteString("}\n")
	return b.String(), nil
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
