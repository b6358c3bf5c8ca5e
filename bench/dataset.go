package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// dataset is where --data points: a directory of the suites' tables, made
// there when missing, or one file, which is read as it is and never
// replaced by a generated one.
type dataset struct {
	dir  string // the directory of the tables (the file's, when file is set)
	file string // the file --data named, if it named one
}

// dataAt reads --data.
func dataAt(path string) (dataset, error) {
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.IsDir():
		return dataset{dir: filepath.Dir(path), file: path}, nil
	case err == nil || os.IsNotExist(err):
		return dataset{dir: path}, nil
	}
	return dataset{}, fmt.Errorf("--data: %w", err)
}

// groupBy returns the groupby table of n rows: the file --data named, once
// its header is the table's, or the table in the directory, written there
// first if it is missing.
func (d dataset) groupBy(n int) (string, error) {
	if d.file == "" {
		if err := os.MkdirAll(d.dir, 0o755); err != nil {
			return "", err
		}
		return GroupByFile(d.dir, n, 100)
	}
	if err := checkHeader(d.file, GroupByHeader); err != nil {
		return "", err
	}
	return d.file, nil
}

// join returns the join suite's four tables of n rows: those in the
// directory (written first if missing), or, when --data named a file, that
// file as the X table of n rows and the other three beside it, which must
// all be there.
func (d dataset) join(n int) ([4]string, error) {
	if d.file == "" {
		if err := os.MkdirAll(d.dir, 0o755); err != nil {
			return [4]string{}, err
		}
		return joinFiles(d.dir, n, false, io.Discard)
	}
	names := JoinFileNames(n)
	if filepath.Base(d.file) != names[0] {
		return [4]string{}, fmt.Errorf("--data %s: the join suite's X table of %d rows is %s (beside %s), as db-benchmark names them",
			d.file, n, names[0], strings.Join(names[1:], ", "))
	}
	var paths [4]string
	for i, name := range names {
		paths[i] = filepath.Join(d.dir, name)
		if _, err := os.Stat(paths[i]); err != nil {
			return paths, fmt.Errorf("--data %s: the join table %s is not beside it: %w", d.file, name, err)
		}
	}
	return paths, nil
}

// checkHeader reports an error naming the file and both headers when the
// CSV file's first line is not header.
func checkHeader(path, header string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--data: %w", err)
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && err != io.EOF {
		return fmt.Errorf("--data %s: %w", path, err)
	}
	if got := strings.TrimRight(line, "\r\n"); got != header {
		return fmt.Errorf("--data %s: its header is %q, not the groupby table's %q", path, got, header)
	}
	return nil
}
