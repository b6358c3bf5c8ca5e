package difftest

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
	duskSQL "github.com/duskdata/dusk/dataframe/sql"
)

var (
	seeds     = flag.Int("diff.seeds", 30, "how many seeds TestDiff runs, each a pair of tables and pipelinesPerSeed pipelines")
	firstSeed = flag.Uint64("diff.seed", 1, "the first seed TestDiff runs")
)

// pipelinesPerSeed is how many pipelines run over each seed's tables.
const pipelinesPerSeed = 10

// bench is what the seeds share: a local cluster and a DuckDB database.
type bench struct {
	ctx context.Context
	db  *sql.DB
}

func newBench(t *testing.T) *bench {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	t.Cleanup(cancel)
	c, err := dusk.NewClient(ctx, dusk.Workers(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // one connection: its views are the ones queried
	t.Cleanup(func() { db.Close() })
	// Zoned timestamps' hours and truncations are New York's, as Dusk
	// takes them in the column's zone.
	if _, err := db.Exec("SET TimeZone = 'America/New_York'"); err != nil {
		t.Fatal(err)
	}
	return &bench{ctx: dusk.WithClient(ctx, c), db: db}
}

// theCase is one seed's tables and one of its pipelines, at some sizes: a
// case file under testdata holds one.
type theCase struct {
	Seed     uint64
	Pipeline int
	TRows    int
	URows    int
	Parts    int
	Format   string   `json:",omitempty"` // what Dusk reads: formats; "" is parquet
	Steps    int      `json:",omitempty"` // the pipeline's first steps kept; 0: all
	Drop     []string `json:",omitempty"` // the tables' columns left out of their files
	SQL      bool     `json:",omitempty"` // Pipeline numbers a SQL query (newSQLQuery), not a pipeline
	Note     string   `json:",omitempty"`
}

// draw makes the case's tables and pipeline from its seed.
func (c theCase) draw() (table, table, *pipeline) {
	r := rand.New(rand.NewPCG(c.Seed, 1))
	t, u := newTable(r, "t", c.TRows), newTable(r, "u", c.URows)
	p := newPipeline(rand.New(rand.NewPCG(c.Seed, uint64(2+c.Pipeline))), t, u)
	if c.Steps > 0 && c.Steps < len(p.steps) {
		p.steps = p.steps[:c.Steps]
	}
	t.Drop, u.Drop = c.Drop, c.Drop // names differ between the tables
	return t, u, p
}

// sizes draws a seed's row counts and files: empty, one row, a few, and
// over 100,000 now and then.
func sizes(seed uint64) (trows, urows, parts int, format string) {
	r := rand.New(rand.NewPCG(seed, 0))
	pick := func() int {
		switch x := r.IntN(20); {
		case x == 0:
			return 0
		case x == 1:
			return 1
		case x < 8:
			return 2 + r.IntN(20)
		case x < 19:
			return 100 + r.IntN(3000)
		}
		return 100_001 + r.IntN(20_000)
	}
	trows, urows, parts = pick(), pick(), []int{1, 3, 16}[r.IntN(3)]
	return trows, urows, parts, formats[r.IntN(len(formats))]
}

// run runs the case on both engines and returns how they disagree, "" if
// they do not.
func (b *bench) run(t *testing.T, c theCase) (string, *pipeline) {
	t.Helper()
	tt, u, p := c.draw()
	dir := t.TempDir()
	tables := map[string]*dataframe.Frame{}
	for _, tb := range []table{tt, u} {
		glob, f, err := tb.write(b.ctx, dir, c.Parts, c.Format)
		if err != nil {
			t.Fatal(err)
		}
		tables[tb.Name] = f
		if _, err := b.db.Exec(fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM read_parquet('%s')", tb.Name, glob)); err != nil {
			t.Fatal(err)
		}
	}
	if c.SQL {
		q := c.query(tt, u)
		return b.compare(q.text, duskSQL.NewContext(tables).Query(q.text), q.ordered), p
	}
	return b.compare(p.query(), p.frame(tables), p.ordered()), p
}

// query is a SQL case's query over t and u, drawn from its seed.
func (c theCase) query(t, u table) sqlQuery {
	return newSQLQuery(rand.New(rand.NewPCG(c.Seed, uint64(1000+c.Pipeline))), t, u)
}

// describe is what a case ran: its SQL query, or its pipeline p and the
// SQL written beside it.
func (c theCase) describe(p *pipeline) string {
	if c.SQL {
		tt, u, _ := c.draw()
		return "SQL: " + c.query(tt, u).text
	}
	return fmt.Sprintf("%s\nSQL: %s", p, p.query())
}

// compare runs query on DuckDB and f, Dusk's answer to it, and says how
// they disagree ("" where both answer alike or both refuse).
func (b *bench) compare(query string, f *dataframe.Frame, ordered bool) string {
	rs, duckErr := b.db.QueryContext(b.ctx, query)
	var duck [][]any
	if duckErr == nil {
		duck, duckErr = duckRows(rs)
		rs.Close()
	}
	tb, duskErr := f.Compute(b.ctx)
	var got [][]any
	if duskErr == nil {
		got, duskErr = duskRows(tb.Record())
		tb.Release()
	}
	switch {
	case duskErr != nil && duckErr != nil:
		return "" // both refuse
	case duskErr != nil:
		return fmt.Sprintf("Dusk failed where DuckDB answered: %v", duskErr)
	case duckErr != nil:
		return fmt.Sprintf("DuckDB failed where Dusk answered: %v\nSQL: %s", duckErr, query)
	}
	return diff(got, duck, ordered)
}

// shrink keeps the fewest first steps that still disagree, leaves out the
// columns it can, then halves the case's rows while it still disagrees.
func (b *bench) shrink(t *testing.T, c theCase) theCase {
	_, _, p := c.draw()
	for n := 1; n < len(p.steps) && !c.SQL; n++ {
		fewer := c
		fewer.Steps = n
		if d, _ := b.run(t, fewer); d != "" {
			c = fewer
			break
		}
	}
	// Columns the disagreement does without (a step that reads one left
	// out fails on both engines, which agree).
	t0, u0, _ := c.draw()
	for _, tb := range []table{t0, u0} {
		for _, col := range tb.Cols {
			fewer := c
			fewer.Drop = append(slices.Clone(c.Drop), col.Name)
			tb.Drop = fewer.Drop
			if len(tb.kept()) == 0 {
				continue // a file holds a column at least
			}
			if d, _ := b.run(t, fewer); d != "" {
				c = fewer
			}
		}
	}
	for c.TRows+c.URows > 1 {
		smaller := c
		if c.TRows >= c.URows {
			smaller.TRows /= 2
		} else {
			smaller.URows /= 2
		}
		if d, _ := b.run(t, smaller); d == "" {
			break
		}
		c = smaller
	}
	return c
}

// TestDiff runs random pipelines on random tables on Dusk and DuckDB and
// compares the answers; a disagreement is shrunk and saved under testdata
// as a case that TestCases replays.
func TestDiff(t *testing.T) { diffSeeds(t, false) }

// TestSQLDiff runs random SQL queries, the same text on DuckDB and on
// Dusk's SQL front end, over random tables, as TestDiff does pipelines.
func TestSQLDiff(t *testing.T) { diffSeeds(t, true) }

func diffSeeds(t *testing.T, sql bool) {
	b := newBench(t)
	runs := 0
	for seed := *firstSeed; seed < *firstSeed+uint64(*seeds); seed++ {
		trows, urows, parts, format := sizes(seed)
		for i := range pipelinesPerSeed {
			c := theCase{Seed: seed, Pipeline: i, TRows: trows, URows: urows, Parts: parts, Format: format, SQL: sql}
			d, p := b.run(t, c)
			runs++
			if testing.Verbose() {
				t.Logf("seed %d case %d (%d and %d rows, %d files, Dusk reading %s): %s", seed, i, trows, urows, parts, format, c.describe(p))
			}
			if d == "" {
				continue
			}
			small := b.shrink(t, c)
			d, sp := b.run(t, small)
			// The case replays what this generator draws for its seed; its
			// note keeps what disagreed, should the generator change.
			small.Note = fmt.Sprintf("%s\n%s", firstLine(d), small.describe(sp))
			name := fmt.Sprintf("seed%d-%d.json", seed, i)
			if sql {
				name = "sql-" + name
			}
			path := filepath.Join("testdata", name)
			js, _ := json.MarshalIndent(small, "", "  ")
			if err := os.WriteFile(path, js, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Errorf("seed %d case %d disagrees (saved %s, shrunk to %d and %d rows):\n%s\n%s",
				seed, i, path, small.TRows, small.URows, small.describe(sp), d)
		}
	}
	t.Logf("%d cases compared", runs)
}

// TestCases replays the cases saved under testdata: each once disagreed,
// and must agree now.
func TestCases(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	if len(files) == 0 {
		t.Skip("no saved cases")
	}
	b := newBench(t)
	for _, f := range files {
		js, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c theCase
		if err := json.Unmarshal(js, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if d, p := b.run(t, c); d != "" {
			t.Errorf("%s (%s): %s\n%s", f, c.Note, d, c.describe(p))
		}
	}
}

// TestOperationsReached: every operation of Dusk's expression table is one
// a maker draws, or is on pendingOps with why; and every aggregation is
// drawn, or pending.
func TestOperationsReached(t *testing.T) {
	reached := map[string]bool{}
	for _, op := range baseOps {
		reached[op] = true
	}
	for _, m := range makers {
		for _, op := range m.ops {
			reached[op] = true
		}
	}
	for _, op := range dataframe.Operations() {
		switch {
		case !reached[op] && pendingOps[op] == "":
			t.Errorf("no maker draws %q, and it is not pending", op)
		case reached[op] && pendingOps[op] != "":
			t.Errorf("%q is drawn: take it off pendingOps", op)
		}
	}
	drawn := map[string]bool{}
	for i := range 3000 {
		r := rand.New(rand.NewPCG(uint64(i), 2))
		t := newTable(r, "t", 10)
		p := &pipeline{source: t.Name}
		for _, c := range t.Cols {
			p.cols = append(p.cols, col{name: c.Name, kind: c.Kind})
		}
		if i%2 == 0 {
			p.sortLimit(r) // first and last need an order
		}
		p.agg(r)
		for _, c := range p.cols {
			name, _, _ := strings.Cut(c.name, "(")
			drawn[name] = true
		}
	}
	pendingAggs := map[string]string{}
	for _, a := range []string{"sum", "mean", "count", "size", "min", "max", "var", "std", "corr", "median", "quantile", "first", "last", "nunique"} {
		if !drawn[a] && pendingAggs[a] == "" {
			t.Errorf("aggregation %s is not drawn, and not pending", a)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
