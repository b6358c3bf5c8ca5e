package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
)

type point struct {
	Name string `dusk:"name"`
	X    int64  `dusk:"x"`
}

// TestSQLCommand runs `dusk sql -c` over a table of Parquet files, in CSV
// and JSON, and the shell over statements and dot commands read from a
// reader, on a local cluster.
func TestSQLCommand(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "points")
	c, err := dusk.NewClient(ctx, dusk.Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	pts := []point{{"a", 3}, {"b", 1}, {"a", 4}, {"c", 1}, {"b", 5}}
	if _, err := dataframe.FromRecords(pts, 2).ToParquet(dusk.WithClient(ctx, c), dir); err != nil {
		t.Fatal(err)
	}
	c.Close()

	var out, errs bytes.Buffer
	query := "select name, sum(x) as total from points group by name order by total desc; select count(*) as n from points where x = $1"
	err = runSQL(ctx, []string{"--workers", "1", "--table", "points=" + dir, "--format", "csv", "-c", strings.Replace(query, "$1", "1", 1)}, &out, &errs)
	if err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	if !strings.HasPrefix(out.String(), "name,total\na,7\nb,6\nc,1\n") {
		t.Errorf("csv answer:\n%s", out.String())
	}
	if !strings.HasSuffix(out.String(), "n\n2\n") {
		t.Errorf("second statement's answer:\n%s", out.String())
	}

	client, err := dusk.NewClient(ctx, dusk.Workers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	client.Register("points", readTable(dir))
	out.Reset()
	sh := &shell{ctx: dusk.WithClient(ctx, client), client: client, stdout: &out, format: "json"}
	input := ".tables\nselect name\n  from points\n  where x > 3;\n.schema points\nselect nope from points;\n.quit\nselect 1;\n"
	errs.Reset()
	if err := sh.interact(strings.NewReader(input), &errs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"points\n", `{"name":"a"}`, `{"name":"b"}`, "points(\n  name utf8,\n  x int64\n)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("shell output lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errs.String(), `no column "nope"`) || !strings.Contains(errs.String(), "^") {
		t.Errorf("shell errors: %q", errs.String())
	}
}

// TestStatements splits at semicolons outside quotes and comments.
func TestStatements(t *testing.T) {
	got := statements("select ';' as s; -- a comment; still\nselect 2;\n select 3")
	want := []string{"select ';' as s", "-- a comment; still\nselect 2", "select 3"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("statements = %q, want %q", got, want)
	}
}

// TestHistoryIsKept: lines added are in the next shell's history, newest
// first.
func TestHistoryIsKept(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	h := openHistory()
	h.Add("select 1;")
	h.Add("  ")
	h.Add("select 2;")
	h.close()
	h = openHistory()
	defer h.close()
	if h.Len() != 2 || h.At(0) != "select 2;" || h.At(1) != "select 1;" {
		t.Errorf("history %q", h.lines)
	}
}
