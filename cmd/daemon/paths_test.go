package daemon_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/duskdata/dusk/dataframe"
)

// Relative paths mean what they mean to the client's user: a program run in
// its data's directory reads data/customers.csv and writes out/ there,
// though the workers run in other working directories. A file listed by
// the client but missing where a worker reads it fails saying that local
// paths are read on the worker's machine.
func TestRelativePathsOnACluster(t *testing.T) {
	sched, _ := startCluster(t, bins.dusk, 2) // working in this package's directory
	ctx := connect(t, testCtx(t), sched.addr)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	csv.WriteString("id,name,spend\n")
	want := 0.0
	for i := range 1000 {
		csv.WriteString(strings.Join([]string{itoa(i), "c" + itoa(i%7), itoa(i % 13)}, ",") + "\n")
		want += float64(i % 13)
	}
	if err := os.WriteFile(filepath.Join(home, "data", "customers.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(home)

	df := dataframe.ReadCSV("data/customers.csv", dataframe.CSVOptions{BlockSize: 4 << 10})
	tab, err := df.Agg(dataframe.Sum("spend")).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got float64
	switch c := tab.Column("sum(spend)").(type) {
	case *array.Int64:
		got = float64(c.Value(0))
	case *array.Float64:
		got = c.Value(0)
	default:
		t.Fatalf("the sum is a %T:\n%s", c, tab)
	}
	if got != want {
		t.Fatalf("sum of spend %v, want %v", got, want)
	}
	files, err := df.ToCSV(ctx, "out/")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasPrefix(f, filepath.Join(home, "out")+string(filepath.Separator)) {
			t.Errorf("wrote %s, not under the client's out/", f)
		}
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}

	gone := dataframe.ReadCSV("data/customers.csv")
	if err := os.Remove(filepath.Join(home, "data", "customers.csv")); err != nil {
		t.Fatal(err)
	}
	_, err = gone.Compute(ctx)
	if err == nil || !strings.Contains(err.Error(), "read on the machine of the worker") ||
		!strings.Contains(err.Error(), filepath.Join(home, "data", "customers.csv")) {
		t.Fatalf("a file gone after listing: %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
