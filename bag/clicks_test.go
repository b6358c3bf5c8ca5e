package bag_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/duskdata/dusk/bag"
)

// Click is a record of the example Dask's bag documentation uses.
type Click struct {
	ID        int    `json:"id"`
	Area      string `json:"area"`
	NumClicks int    `json:"num_clicks"`
	Info      struct {
		AField string `json:"a_field"`
	} `json:"info"`
}

var (
	manyClicks = bag.Register("test-many-clicks", func(r map[string]any) bool {
		n, _ := r["num_clicks"].(float64)
		return n > 2
	})
	manyClicksTyped = bag.Register("test-many-clicks-typed", func(r Click) bool { return r.NumClicks > 2 })
	clickArea       = bag.Register("test-click-area", func(r Click) string { return r.Area })
)

// writeClicks writes n click records over files JSON-lines files and
// returns their glob and the records.
func writeClicks(t testing.TB, n, files int) (string, []Click) {
	dir := t.TempDir()
	areas := []string{"north", "south", "east", "west"}
	var all []Click
	for f := range files {
		var buf []byte
		for i := f * n / files; i < (f+1)*n/files; i++ {
			c := Click{ID: i, Area: areas[(i*7)%len(areas)], NumClicks: (i * 5) % 6}
			c.Info.AField = fmt.Sprint("x", i%3)
			line, _ := json.Marshal(c)
			buf = append(append(buf, line...), '\n')
			all = append(all, c)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", f)), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "*.json"), all
}

func TestClicksExample(t *testing.T) {
	ctx := newClient(t)
	glob, clicks := writeClicks(t, 101, 4)
	var wantMany []Click
	for _, c := range clicks {
		if c.NumClicks > 2 {
			wantMany = append(wantMany, c)
		}
	}

	b := bag.ReadJSON[map[string]any](glob)
	many, err := bag.Filter(b, manyClicks).Take(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(many) != 2 || many[0]["id"] != float64(wantMany[0].ID) || many[1]["id"] != float64(wantMany[1].ID) {
		t.Fatalf("filter num_clicks > 2, take 2 = %v; want ids %d, %d", many, wantMany[0].ID, wantMany[1].ID)
	}
	areas, err := bag.Pluck(b, "area").Take(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(areas, []any{clicks[0].Area, clicks[1].Area}) {
		t.Fatalf("pluck area, take 2 = %v", areas)
	}
	n, err := b.Count().Compute(ctx)
	if err != nil || n != int64(len(clicks)) {
		t.Fatalf("count = %d, %v; want %d", n, err, len(clicks))
	}

	// The same with the records decoded into a struct.
	typed := bag.ReadJSON[Click](glob)
	got, err := bag.Filter(typed, manyClicksTyped).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, wantMany) {
		t.Fatalf("typed filter: %d records, want %d", len(got), len(wantMany))
	}
	freq, err := bag.Frequencies(bag.Map(typed, clickArea)).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	order, counts := firstSeen(bag.MustMap(clicks, func(c Click) string { return c.Area }))
	if len(freq) != len(order) {
		t.Fatalf("frequencies %v", freq)
	}
	for i, p := range freq {
		if p.Key != order[i] || p.Value != counts[p.Key] {
			t.Fatalf("frequencies %v; want order %v counts %v", freq, order, counts)
		}
	}
	fields, err := bag.Pluck(typed, "info").Take(ctx, 1)
	if err != nil || len(fields) != 1 {
		t.Fatal(fields, err)
	}
}

func TestReadTextAndWrite(t *testing.T) {
	ctx := newClient(t)
	glob, clicks := writeClicks(t, 37, 3)
	old := bag.BlockSize
	bag.BlockSize = 256 // many blocks a file, lines cut across them
	t.Cleanup(func() { bag.BlockSize = old })

	lines, err := bag.ReadText(glob).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(clicks) {
		t.Fatalf("%d lines, want %d", len(lines), len(clicks))
	}
	for i, l := range lines {
		var c Click
		if err := json.Unmarshal([]byte(l), &c); err != nil || c != clicks[i] {
			t.Fatalf("line %d = %q (%v), want %+v", i, l, err, clicks[i])
		}
	}
	recs, err := bag.ReadJSON[Click](glob).Compute(ctx)
	if err != nil || !slices.Equal(recs, clicks) {
		t.Fatalf("ReadJSON in small blocks: %d records, %v", len(recs), err)
	}

	out := t.TempDir()
	paths, err := bag.ToText(ctx, bag.ReadText(glob), out, false)
	if err != nil {
		t.Fatal(err)
	}
	back, err := bag.ReadText(filepath.Join(out, "*")).Compute(ctx)
	if err != nil || !slices.Equal(back, lines) {
		t.Fatalf("ToText (%d files) read back %d lines, %v", len(paths), len(back), err)
	}
	if _, err := bag.ToText(ctx, bag.ReadText(glob), out, false); err == nil {
		t.Fatal("ToText over existing files without overwrite: no error")
	}

	jdir := t.TempDir()
	if _, err := bag.ToJSON(ctx, bag.ReadJSON[Click](glob), jdir, false); err != nil {
		t.Fatal(err)
	}
	again, err := bag.ReadJSON[Click](filepath.Join(jdir, "*")).Compute(ctx)
	if err != nil || !slices.Equal(again, clicks) {
		t.Fatalf("ToJSON read back %d records, %v", len(again), err)
	}
}

func TestReadJSONErrorNamesLine(t *testing.T) {
	ctx := newClient(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.json")
	os.WriteFile(p, []byte("{\"id\": 1}\n\n{\"id\": oops}\n"), 0o644)
	_, err := bag.ReadJSON[Click](p).Compute(ctx)
	if err == nil || !contains(err.Error(), p+" line 3") {
		t.Fatalf("error %v; want it to name %s line 3", err, p)
	}
	if _, err := bag.ReadText(filepath.Join(dir, "none*.txt")).Compute(ctx); err == nil {
		t.Fatal("ReadText of no files: no error")
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
