package tpch_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/bench/tpch"
)

// sf1 returns a folder of the SF1 tables, generating them the first time:
// in the user's cache, where later runs find them, or else in a temporary
// folder.
func sf1(t *testing.T) string {
	t.Helper()
	dir := ""
	if c, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(c, "dusk", "tpch-sf1")
	}
	if dir == "" || os.MkdirAll(dir, 0o755) != nil {
		dir = t.TempDir()
	}
	if err := tpch.Generate(dir, 1, testLog{t}); err != nil {
		t.Fatal(err)
	}
	return dir
}

type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) { l.t.Log(string(b)); return len(b), nil }

func testClient(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	t.Cleanup(cancel)
	c, err := dusk.NewClient(ctx, dusk.Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return dusk.WithClient(ctx, c)
}

// TestAnswersSF1 runs the 22 queries on the official SF1 data, reading
// the tables from their files, and checks every answer against TPC-H's.
func TestAnswersSF1(t *testing.T) {
	if testing.Short() {
		t.Skip("generates TPC-H SF1")
	}
	dir := sf1(t)
	ctx := testClient(t)
	tables, err := tpch.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tpch.Queries {
		q := &tpch.Queries[i]
		t.Run(q.ID, func(t *testing.T) {
			f, err := q.Build(ctx, tables)
			if err != nil {
				t.Fatal(err)
			}
			tab, err := f.Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tab.Release()
			got, err := tpch.AnswerRows(q, tab)
			if err != nil {
				t.Fatal(err)
			}
			_, want, err := tpch.ReadAnswer(filepath.Join("testdata", "sf1-answers", tpch.AnswerFile(q.ID)))
			if err != nil {
				t.Fatal(err)
			}
			if err := tpch.CompareAnswer(q, got, want); err != nil {
				t.Error(err)
			}
		})
	}
}
