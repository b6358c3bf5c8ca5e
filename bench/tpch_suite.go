package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/duskdata/dusk/bench/tpch"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/dataframe/sql"
	"github.com/duskdata/dusk/io/storage"
)

const tpchUsage = `usage: dusk bench gen tpch --sf N --data DIR
       dusk bench tpch --data DIR [--queries q1,q5] [--persist] [--sql] [--json FILE] [--answers OUTDIR]
       dusk bench tpch --scan --data DIR

  gen tpch  the eight TPC-H tables at scale factor N (1, 10, ..., or below 1
            in thousandths: 0.01, 0.1), made by the official generator's Go
            port, as Parquet: DIR/<table>.parquet, or a folder DIR/<table>/
            of files of about a million rows
  tpch      the 22 TPC-H queries, each run twice, reading the tables from
            DIR's files (either layout; money DOUBLE or DECIMAL); with
            --persist the tables are read into the workers' memory first,
            timed as "load". --answers writes each answer as OUTDIR/qNN.csv
  --sql     the queries as TPC-H's own texts (bench/tpch/duckdb/queries.sql)
            through the SQL front end, in place of their dataframe versions
  --scan    instead of the queries, each of seven kinds of lineitem column
            read alone and summed (a date's or string's maximum), twice:
            the rate is the column's compressed bytes in the files a second
            (bench/tpch/duckdb/scan.mjs times DuckDB alike)

flags: --workers W  --scheduler ADDR  --memory-limit BYTES (2GB, 512MiB)  --cpuprofile FILE
`

// addGenTPCHFlags adds the flags of `dusk bench gen tpch`.
func addGenTPCHFlags(fs *flag.FlagSet) (sf, dir *string) {
	return fs.String("sf", "1", "scale factor: a whole number of 1 or more (1 is about 1 GB of text), or thousandths below 1 (0.01, 0.1)"),
		fs.String("data", "data/tpch", "directory to write the tables to")
}

// tpchFlags are the flags of `dusk bench tpch` beside the run flags.
type tpchFlags struct {
	dir, queries, answers *string
	persist, scan, sql    *bool
}

func addTPCHFlags(fs *flag.FlagSet) tpchFlags {
	return tpchFlags{
		dir:     fs.String("data", "data/tpch", "directory of the tables"),
		queries: fs.String("queries", "", "comma-separated queries to run, such as q1,q5; all when empty"),
		persist: fs.Bool("persist", false, "read the tables into the workers' memory first"),
		answers: fs.String("answers", "", "directory to write each query's answer to, as qNN.csv"),
		scan:    fs.Bool("scan", false, "time a scan of each kind of lineitem column instead of the queries"),
		sql:     fs.Bool("sql", false, "run TPC-H's own query texts through the SQL front end"),
	}
}

// genTPCH runs `dusk bench gen tpch`.
func genTPCH(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("dusk bench gen tpch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, tpchUsage) }
	sf, dir := addGenTPCHFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	n, err := tpch.ParseScale(*sf)
	if err != nil {
		return fmt.Errorf("--sf: %w", err)
	}
	return tpch.Generate(*dir, n, stderr)
}

// runTPCH runs `dusk bench tpch`.
func runTPCH(ctx context.Context, args []string, stdout, stderr io.Writer, connect Connect) error {
	fs := flag.NewFlagSet("dusk bench tpch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, tpchUsage) }
	tf := addTPCHFlags(fs)
	dir, queries, persist, answers := tf.dir, tf.queries, tf.persist, tf.answers
	rf := addRunFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	ids, err := chooseTPCH(*queries)
	if err != nil {
		return err
	}
	limit, err := parseBytes(rf.memLimit)
	if err != nil {
		return fmt.Errorf("--memory-limit: %w", err)
	}
	tables, err := tpch.Open(*dir)
	if err != nil {
		return err
	}
	if *answers != "" {
		if err := os.MkdirAll(*answers, 0o755); err != nil {
			return err
		}
	}
	r, done, err := rf.start(ctx, "tpch", limit, 0, stdout, stderr, connect)
	if err != nil {
		return err
	}
	defer done()
	if *tf.scan {
		return r.tpchScans(tables, *dir)
	}
	if *persist {
		r.step("load", 1)
		resetPeakRSS()
		cpu := startCPU(r.cores)
		start := time.Now()
		loaded, err := tables.Persist(r.ctx)
		use := cpu.finish()
		if err != nil {
			return err
		}
		defer loaded.Release()
		secs := time.Since(start).Seconds()
		rows, err := loaded.Lineitem.Len(r.ctx)
		if err != nil {
			return err
		}
		r.report(Result{Question: "load", Run: 1, Seconds: secs, Rows: rows, PeakRSSBytes: peakRSS(), CPU: use})
		tables = loaded
	}
	var sc *sql.Context // nil: the dataframe versions
	if *tf.sql {
		sc = tables.SQL()
	}
	var totals [2]float64
	for _, id := range ids {
		secs, err := r.tpchQuery(tpch.QueryNamed(id), tables, sc, *answers)
		if err != nil {
			return errors.Join(err, r.err)
		}
		totals[0], totals[1] = totals[0]+secs[0], totals[1]+secs[1]
	}
	// The totals, as engines are compared by them (the table only: the
	// JSON lines are the queries').
	for run, secs := range totals {
		fmt.Fprintf(stdout, rowFormat, "total", strconv.Itoa(run+1), strconv.FormatFloat(secs, 'f', 3, 64), "", "", "", "")
	}
	return r.err
}

// tpchQuery runs one query twice, each run timed from building its frames
// (a scalar subquery is computed then) to its answer in this process.
// The first run's answer is written to answers, when given. It returns the
// two runs' seconds.
func (r *runner) tpchQuery(q *tpch.Query, t *tpch.Tables, sc *sql.Context, answers string) ([2]float64, error) {
	var seconds [2]float64
	for run := 1; run <= 2; run++ {
		r.step(q.ID, run)
		resetPeakRSS()
		cpu := startCPU(r.cores)
		start := time.Now()
		tab, err := r.tpchRun(q, t, sc)
		use := cpu.finish()
		if err != nil {
			return seconds, fmt.Errorf("tpch %s run %d: %w", q.ID, run, err)
		}
		secs, rss := time.Since(start).Seconds(), peakRSS()
		seconds[run-1] = secs
		r.report(Result{Question: q.ID, Run: run, Seconds: secs, Rows: int64(tab.NumRows()), PeakRSSBytes: rss, CPU: use})
		if run == 1 && answers != "" {
			path := filepath.Join(answers, tpch.AnswerFile(q.ID))
			err = storage.WriteFile(path, true, func(w io.Writer) error { return tpch.WriteAnswer(w, q, tab) })
		}
		tab.Release()
		if err != nil {
			return seconds, fmt.Errorf("tpch %s: %w", q.ID, err)
		}
	}
	return seconds, nil
}

// tpchScans times the scan of each of tpch.ScanColumns, twice.
func (r *runner) tpchScans(t *tpch.Tables, dir string) error {
	cols, err := tpch.Scans(dir)
	if err != nil {
		return err
	}
	for _, c := range cols {
		for run := 1; run <= 2; run++ {
			name := "scan " + c.Name
			r.step(name, run)
			resetPeakRSS()
			cpu := startCPU(r.cores)
			start := time.Now()
			tab, err := c.Frame(t).Compute(r.ctx)
			use := cpu.finish()
			if err != nil {
				return fmt.Errorf("tpch scan of %s: %w", c.Name, err)
			}
			secs := time.Since(start).Seconds()
			r.report(Result{Question: name, Run: run, Seconds: secs, Rows: int64(tab.NumRows()), PeakRSSBytes: peakRSS(), CPU: use, BytesPerSec: float64(c.Compressed) / secs})
			tab.Release()
		}
	}
	return r.err
}

// tpchRun builds q's frames over t, from its SQL text where sc is given
// (parsing and binding timed with the run), and computes its answer.
func (r *runner) tpchRun(q *tpch.Query, t *tpch.Tables, sc *sql.Context) (*dataframe.Table, error) {
	var f *dataframe.Frame
	if sc != nil {
		text, err := tpch.SQLText(q.ID)
		if err != nil {
			return nil, err
		}
		f = sc.Query(text)
	} else {
		var err error
		if f, err = q.Build(r.ctx, t); err != nil {
			return nil, err
		}
	}
	return f.Compute(r.ctx)
}

// chooseTPCH returns the queries listed, or all.
func chooseTPCH(list string) ([]string, error) {
	var all []string
	for _, q := range tpch.Queries {
		all = append(all, q.ID)
	}
	if list == "" {
		return all, nil
	}
	want := strings.Split(list, ",")
	for _, q := range want {
		if !slices.Contains(all, q) {
			return nil, fmt.Errorf("no TPC-H query %q; there are q1 … q22", q)
		}
	}
	return want, nil
}
