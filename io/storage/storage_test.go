package storage

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/duskdata/dusk/internal/s3test"
)

// tree is the layout of Pachyderm's glob examples, with hidden files.
var tree = []string{
	"California/a.csv", "California/b.csv", "Colorado/c.csv", "Nevada/deep/d.csv",
	"top.csv", ".hidden", "_SUCCESS", "California/.DS_Store", "_tmp/x.csv",
}

// datumCases are glob patterns relative to the tree's root and the datums
// they name, each as "name: file file".
var datumCases = []struct {
	pattern string
	want    []string
}{
	{"*", []string{"California: California/a.csv California/b.csv", "Colorado: Colorado/c.csv", "Nevada: Nevada/deep/d.csv", "top.csv: top.csv"}},
	{"*/*", []string{"California/a.csv: California/a.csv", "California/b.csv: California/b.csv", "Colorado/c.csv: Colorado/c.csv", "Nevada/deep: Nevada/deep/d.csv"}},
	{"California/*", []string{"California/a.csv: California/a.csv", "California/b.csv: California/b.csv"}},
	{"C*/*.csv", []string{"California/a.csv: California/a.csv", "California/b.csv: California/b.csv", "Colorado/c.csv: Colorado/c.csv"}},
	{"", []string{": California/a.csv California/b.csv Colorado/c.csv Nevada/deep/d.csv top.csv"}},
	{"California", []string{"California: California/a.csv California/b.csv"}},
	{"California/", []string{"California: California/a.csv California/b.csv"}},
	{"top.csv", []string{"top.csv: top.csv"}},
}

// describe renders datums relative to root, as datumCases writes them.
func describe(t *testing.T, root string, ds []Datum) []string {
	t.Helper()
	rel := func(p string) string {
		p, _, _ = strings.Cut(p, "?")
		return strings.TrimPrefix(strings.TrimPrefix(filepath.ToSlash(p), filepath.ToSlash(root)), "/")
	}
	var out []string
	for _, d := range ds {
		var files []string
		for _, f := range d.Files {
			files = append(files, rel(f.Path))
			if f.Size != int64(len(f.Path)) && f.Size != int64(len(rel(f.Path))) {
				t.Errorf("%s: size %d", f.Path, f.Size)
			}
		}
		out = append(out, rel(d.Name)+": "+strings.Join(files, " "))
	}
	return out
}

func writeTree(t *testing.T, root string) {
	t.Helper()
	for _, p := range tree {
		if err := WriteFile(Join(root, p), false, func(w io.Writer) error {
			_, err := io.WriteString(w, p)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
}

func checkDatums(t *testing.T, root string) {
	for _, tt := range datumCases {
		pattern := Join(root, tt.pattern)
		if tt.pattern == "" {
			pattern = root
		}
		if strings.HasSuffix(tt.pattern, "/") && !strings.HasSuffix(pattern, "/") {
			pattern += "/"
		}
		ds, err := Datums(pattern)
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		if got := describe(t, root, ds); !slices.Equal(got, tt.want) {
			t.Errorf("%q:\n got %q\nwant %q", tt.pattern, got, tt.want)
		}
	}
	if _, err := Datums(Join(root, "Texas/*")); !errors.Is(err, ErrNoMatch) {
		t.Errorf("no match: err = %v, want ErrNoMatch", err)
	}
}

func TestDatumsLocal(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir)
	checkDatums(t, dir)
	t.Run("file URL", func(t *testing.T) {
		ds, err := Datums("file://" + filepath.ToSlash(dir) + "/C*/*.csv")
		if err != nil || len(ds) != 3 {
			t.Fatalf("file URL: %d datums, %v", len(ds), err)
		}
	})
}

// A link to a file, in a listed directory or named itself, is listed as
// the file it points to: its size is the file's, not the link's.
func TestLocalLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "data.csv")
	body := strings.Repeat("a,b\n", 1000)
	if err := os.WriteFile(target, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "linked.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "linked-dir")); err != nil {
		t.Fatal(err)
	}
	for _, pattern := range []string{dir, filepath.Join(dir, "*.csv"), filepath.Join(dir, "linked.csv")} {
		files, err := List(pattern)
		if err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		if len(files) != 1 || filepath.Base(files[0].Path) != "linked.csv" || files[0].Size != int64(len(body)) {
			t.Errorf("%s: %+v, want linked.csv of %d bytes", pattern, files, len(body))
		}
	}
}

func TestDatumsMem(t *testing.T) {
	root := "mem://datums-test/data"
	writeTree(t, root)
	checkDatums(t, root)
}

func TestDatumsS3(t *testing.T) {
	root := s3test.Start(t, "datums") + "/data"
	writeTree(t, root)
	checkDatums(t, root)
	f, err := Open(Join(root, "California/a.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 5)
	if n, err := f.ReadAt(buf, 11); n != 5 || err != nil || string(buf) != "a.csv" {
		t.Fatalf("ReadAt: %q %d %v", buf, n, err)
	}
}

// A bucket URL opened again after its store's endpoint changed (another
// server, as in a test run twice) reaches the new server, not the first.
func TestBucketFollowsEndpoint(t *testing.T) {
	for _, want := range []string{"first", "second"} {
		t.Run(want, func(t *testing.T) {
			p := Join(s3test.Start(t, "endpoint"), "x.txt")
			if err := WriteFile(p, false, func(w io.Writer) error { _, err := io.WriteString(w, want); return err }); err != nil {
				t.Fatal(err)
			}
			got, err := ReadAll(p, nil)
			if err != nil || string(got) != want {
				t.Fatalf("read %q, %v; want %q", got, err, want)
			}
		})
	}
}

// TestWritesAreAtomic checks, on each store, that an aborted or failed write
// leaves nothing, that an existing file is kept unless overwrite is asked
// for, and that files being written are not listed.
func TestWritesAreAtomic(t *testing.T) {
	roots := map[string]string{
		"local": t.TempDir(),
		"mem":   "mem://atomic-test",
		"s3":    s3test.Start(t, "atomic"),
	}
	for name, root := range roots {
		t.Run(name, func(t *testing.T) {
			p := Join(root, "out/part.0.csv")
			if err := WriteFile(p, false, func(w io.Writer) error {
				io.WriteString(w, "half a file")
				return fmt.Errorf("disk on fire")
			}); err == nil || !strings.Contains(err.Error(), "disk on fire") {
				t.Fatalf("failed write: %v", err)
			}
			if _, err := Stat(p); !IsNotExist(err) {
				t.Fatalf("a failed write left %s: %v", p, err)
			}
			w, err := Create(p, false)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(w, "in progress")
			if files, err := List(Join(root, "out")); err == nil {
				t.Fatalf("a write in progress is listed: %v", files)
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			err = WriteFile(p, false, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err })
			if !errors.Is(err, ErrExist) {
				t.Fatalf("write over an existing file: %v, want ErrExist", err)
			}
			if b, _ := ReadAll(p, nil); string(b) != "in progress" {
				t.Fatalf("the existing file became %q", b)
			}
			if err := WriteFile(p, true, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
				t.Fatal(err)
			}
			if b, _ := ReadAll(p, nil); string(b) != "new" {
				t.Fatalf("overwritten file holds %q", b)
			}
			files, err := List(Join(root, "out"))
			if err != nil || len(files) != 1 {
				t.Fatalf("after the writes: %v %v", files, err)
			}
		})
	}
	if entries, _ := os.ReadDir(filepath.Join(roots["local"], "out")); len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestBadURLs(t *testing.T) {
	_, err := List("ftp://host/x.csv")
	if err == nil || !strings.Contains(err.Error(), `unknown URL scheme "ftp"`) || !strings.Contains(err.Error(), "s3://") {
		t.Fatalf("unknown scheme: %v", err)
	}
	t.Setenv("AZURE_STORAGE_ACCOUNT", "")
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "")
	if _, err := List("azblob://container/x.csv"); err == nil || !strings.Contains(err.Error(), "AZURE_STORAGE_ACCOUNT") {
		t.Fatalf("azure without credentials: %v", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
	if _, err := List("s3://no-credentials/x.csv"); err == nil || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Fatalf("s3 without credentials: %v", err)
	}
}

func TestLocalWritesAreReadableByOthers(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.csv")
	if err := WriteFile(p, false, func(w io.Writer) error { _, err := io.WriteString(w, "a\n"); return err }); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil || info.Mode().Perm()&0o044 == 0 {
		t.Fatalf("mode %v, %v: want readable by group and others (umask permitting)", info.Mode(), err)
	}
}

func TestPathOrderIsNumeric(t *testing.T) {
	dir := t.TempDir()
	names := []string{"a/part.2.csv", "a/part.10.csv", "a/part.1.csv", "a10/x.csv", "a2/x.csv", "b.csv", "a/part.02.csv"}
	for _, n := range names {
		if err := WriteFile(filepath.Join(dir, n), false, func(io.Writer) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	files, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f.Path)
		got = append(got, filepath.ToSlash(rel))
	}
	want := []string{"a/part.1.csv", "a/part.02.csv", "a/part.2.csv", "a/part.10.csv", "a2/x.csv", "a10/x.csv", "b.csv"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %q, want %q", got, want)
	}
	ds, _ := Datums(filepath.Join(dir, "*"))
	if len(ds) != 4 || !strings.HasSuffix(ds[1].Name, "a2") || !strings.HasSuffix(ds[2].Name, "a10") {
		t.Fatalf("datums %v", ds)
	}
}

// Relative local paths become absolute against the working directory;
// URLs and absolute paths stay as they are.
func TestAbs(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"data/x.csv":          filepath.Join(wd, "data/x.csv"),
		"./out/":              filepath.Join(wd, "out") + "/",
		"data/*.parquet":      filepath.Join(wd, "data/*.parquet"),
		"/abs/x.csv":          "/abs/x.csv",
		"s3://bucket/key.csv": "s3://bucket/key.csv",
		"file:///tmp/x.csv":   "file:///tmp/x.csv",
		"":                    "",
	} {
		if got := Abs(in); got != want {
			t.Errorf("Abs(%q) = %q, want %q", in, got, want)
		}
	}
}
