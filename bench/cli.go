package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/io/storage"
)

// Connect reaches the cluster the questions run on: a local one of workers
// workers when scheduler is empty. It returns a context whose computations
// run there and a function that disconnects. bench cannot import the dusk
// package (it reaches internal/cluster), so the command's caller supplies it.
type Connect func(ctx context.Context, workers int, scheduler string) (context.Context, func(), error)

// Result is one timed step of a suite, one line of `dusk bench --json`.
type Result struct {
	Suite        string    `json:"suite"`    // "groupby" or "join"
	Question     string    `json:"question"` // "load", "q1".."q10", "j1".."j5"
	Run          int       `json:"run"`      // 1 or 2
	Seconds      float64   `json:"seconds"`
	Rows         int64     `json:"rows"`
	Checksum     []float64 `json:"checksum"`       // sums of the answer's numeric columns, in column order
	PeakRSSBytes int64     `json:"peak_rss_bytes"` // this process's VmHWM after the step; 0 where unknown
}

const usage = `usage: dusk bench COMMAND [flags]

  gen      --rows N [--data DIR]   write db-benchmark's groupby and join CSV files
  groupby  --rows N [--data DIR] [--questions q1,q3] [--json FILE] [--workers N] [--scheduler ADDR]
  join     --rows N [--data DIR] [--questions j1,j5] [--json FILE] [--workers N] [--scheduler ADDR]
  compare  OLD.json NEW.json      seconds of NEW over OLD per suite, question and run

N may be written 1e7. groupby and join write the files they need if absent.
`

// Main runs `dusk bench` with args (those after "bench"). connect is used by
// groupby and join only.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, connect Connect) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return errors.New("no command")
		}
		return nil
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "compare":
		if len(args) != 2 {
			return errors.New("compare wants OLD.json NEW.json")
		}
		return compare(args[0], args[1], stdout)
	case "gen", "groupby", "join":
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
	fs := flag.NewFlagSet("dusk bench "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	rows := fs.String("rows", "1e7", "rows of the groupby table and of the join's X (1e7 or 10000)")
	dir := fs.String("data", "data", "directory of the CSV files")
	questions := fs.String("questions", "", "comma-separated questions to run; all when empty")
	jsonPath := fs.String("json", "", "file to write the results to, one JSON object a line")
	workers := fs.Int("workers", runtime.NumCPU(), "workers of the local cluster")
	scheduler := fs.String("scheduler", "", "address of a running scheduler instead of a local cluster")
	cpuProfile := fs.String("cpuprofile", "", "file to write a CPU profile of this process to (the local cluster's workers run in it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	n, err := parseCount(*rows)
	if err != nil {
		return fmt.Errorf("--rows: %w", err)
	}
	if cmd == "gen" {
		return gen(*dir, n, stderr)
	}

	var ids []string
	if cmd == "groupby" {
		for _, q := range GroupByQuestions {
			ids = append(ids, q.ID)
		}
	} else {
		for _, q := range JoinQuestions {
			ids = append(ids, q.ID)
		}
	}
	if *questions != "" {
		want := strings.Split(*questions, ",")
		for _, q := range want {
			if !slices.Contains(ids, q) {
				return fmt.Errorf("no %s question %q; there are %s", cmd, q, strings.Join(ids, ","))
			}
		}
		ids = want
	}
	if connect == nil {
		return errors.New("no cluster to run on (nil Connect)")
	}
	ctx, done, err := connect(ctx, *workers, *scheduler)
	if err != nil {
		return err
	}
	defer done()

	r := &runner{ctx: ctx, suite: cmd, out: stdout}
	if *jsonPath != "" {
		f, err := os.Create(*jsonPath)
		if err != nil {
			return err
		}
		defer f.Close()
		r.json = json.NewEncoder(f)
	}
	r.header()
	if cmd == "groupby" {
		err = r.groupby(*dir, n, ids)
	} else {
		err = r.join(*dir, n, ids)
	}
	return errors.Join(err, r.err)
}

// parseCount reads a row count such as 10000, 1e7 or 1_000_000.
func parseCount(s string) (int, error) {
	s = strings.ReplaceAll(s, "_", "")
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 1 || f != math.Trunc(f) || f > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a positive whole number", s)
	}
	return int(f), nil
}

// JoinFileNames are db-benchmark's names of the join tables for an X of n
// rows (x, small, medium, big), such as J1_1e7_NA_0_0.csv and
// J1_1e7_1e1_0_0.csv, each named by its row count as GenJoin makes it.
func JoinFileNames(n int) [4]string {
	name := func(rows string) string { return fmt.Sprintf("J1_%s_%s_0_0.csv", sci(n), rows) }
	n1, n2 := max(n/1_000_000, 10), max(n/1_000, 100)
	return [4]string{name("NA"), name(sci(n1)), name(sci(n2)), name(sci(n))}
}

// gen writes the groupby table and the join tables for n rows in dir,
// keeping those already there.
func gen(dir string, n int, log io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	start := time.Now()
	p, err := GroupByFile(dir, n, 100)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "%s (%.1fs)\n", p, time.Since(start).Seconds())
	_, err = joinFiles(dir, n, log)
	return err
}

// joinFiles returns the paths of the join tables for n rows in dir, writing
// them first, atomically, if any is missing.
func joinFiles(dir string, n int, log io.Writer) ([4]string, error) {
	var paths [4]string
	missing := false
	for i, name := range JoinFileNames(n) {
		paths[i] = filepath.Join(dir, name)
		if _, err := os.Stat(paths[i]); err != nil {
			missing = true
		}
	}
	if !missing {
		return paths, nil
	}
	if n < MinJoinRows {
		return paths, fmt.Errorf("join tables need at least %d rows, not %d", MinJoinRows, n)
	}
	start := time.Now()
	t := GenJoin(n, 1)
	for i, tab := range []*JoinTable{&t.X, &t.Small, &t.Medium, &t.Big} {
		cols := tab.columns()
		err := storage.WriteFile(paths[i], true, func(w io.Writer) error { return writeCSV(w, cols) })
		if err != nil {
			return paths, err
		}
		fmt.Fprintf(log, "%s (%.1fs)\n", paths[i], time.Since(start).Seconds())
	}
	return paths, nil
}

// writeCSV writes cols with a header; floats in their shortest form that
// reads back to the same value.
func writeCSV(w io.Writer, cols []column) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	for i, c := range cols {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(c.name)
	}
	bw.WriteByte('\n')
	var b []byte
	for r := range cols[0].len() {
		b = b[:0]
		for i, c := range cols {
			if i > 0 {
				b = append(b, ',')
			}
			switch {
			case c.ints != nil:
				b = strconv.AppendInt(b, c.ints[r], 10)
			case c.strs != nil:
				b = append(b, c.strs[r]...)
			default:
				b = strconv.AppendFloat(b, c.floats[r], 'f', -1, 64)
			}
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// runner times a suite's steps and reports them.
type runner struct {
	ctx   context.Context
	suite string
	out   io.Writer
	json  *json.Encoder
	err   error // the first error writing the JSON file
}

// rowFormat lays out the table in fixed columns, so each row can be printed
// as soon as it is timed.
const rowFormat = "%-8s  %3s  %9s  %11s  %s\n"

func (r *runner) header() {
	fmt.Fprintf(r.out, rowFormat, "question", "run", "seconds", "rows", "checksum")
}

func (r *runner) report(res Result) {
	res.Suite = r.suite
	sums := make([]string, len(res.Checksum))
	for i, s := range res.Checksum {
		sums[i] = strconv.FormatFloat(s, 'g', 10, 64)
	}
	fmt.Fprintf(r.out, rowFormat, res.Question, strconv.Itoa(res.Run), strconv.FormatFloat(res.Seconds, 'f', 3, 64),
		strconv.FormatInt(res.Rows, 10), strings.Join(sums, " "))
	if r.json != nil && r.err == nil {
		if res.Checksum == nil {
			res.Checksum = []float64{}
		}
		r.err = r.json.Encode(res)
	}
}

// load reads the CSV files into the cluster's memory, timed as one step.
func (r *runner) load(paths ...string) ([]*dataframe.Frame, error) {
	resetPeakRSS()
	start := time.Now()
	frames := make([]*dataframe.Frame, len(paths))
	for i, p := range paths {
		f, err := dataframe.ReadCSV(p).Persist(r.ctx)
		if err != nil {
			for _, g := range frames[:i] {
				g.Release()
			}
			return nil, fmt.Errorf("load %s: %w", p, err)
		}
		frames[i] = f
	}
	rows, err := frames[0].Len(r.ctx)
	if err != nil {
		return nil, err
	}
	r.report(Result{Question: "load", Run: 1, Seconds: time.Since(start).Seconds(), Rows: rows, PeakRSSBytes: peakRSS()})
	return frames, nil
}

// question runs one question twice. Each run's time is its answer computed
// and held in the workers' memory (Persist) and its rows counted there; the
// checksum is computed afterwards, untimed.
func (r *runner) question(id string, build func() (*dataframe.Frame, error)) error {
	for run := 1; run <= 2; run++ {
		f, err := build()
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		resetPeakRSS()
		start := time.Now()
		p, err := f.Persist(r.ctx)
		if err != nil {
			return fmt.Errorf("%s run %d: %w", id, run, err)
		}
		rows, err := p.Len(r.ctx)
		secs, rss := time.Since(start).Seconds(), peakRSS()
		if err != nil {
			p.Release()
			return fmt.Errorf("%s run %d: %w", id, run, err)
		}
		sums, err := Checksum(r.ctx, p)
		p.Release()
		if err != nil {
			return fmt.Errorf("%s run %d: %w", id, run, err)
		}
		r.report(Result{Question: id, Run: run, Seconds: secs, Rows: rows, Checksum: sums, PeakRSSBytes: rss})
	}
	return nil
}

func (r *runner) groupby(dir string, n int, ids []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path, err := GroupByFile(dir, n, 100)
	if err != nil {
		return err
	}
	frames, err := r.load(path)
	if err != nil {
		return err
	}
	x := frames[0]
	defer x.Release()
	splitOut := max(x.NumPartitions(), 1)
	for _, id := range ids {
		if err := r.question(id, func() (*dataframe.Frame, error) { return GroupByQuery(id, x, splitOut) }); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) join(dir string, n int, ids []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	paths, err := joinFiles(dir, n, io.Discard)
	if err != nil {
		return err
	}
	t, err := r.load(paths[:]...)
	if err != nil {
		return err
	}
	defer func() {
		for _, f := range t {
			f.Release()
		}
	}()
	for _, id := range ids {
		if err := r.question(id, func() (*dataframe.Frame, error) { return JoinQuery(id, t[0], t[1], t[2], t[3]) }); err != nil {
			return err
		}
	}
	return nil
}

// resetPeakRSS starts this process's peak resident memory (VmHWM) over
// from what it holds now, so that each step reports its own peak; where
// Linux does not allow it, peaks are the process's since it started.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is this process's peak resident memory (VmHWM) since the last
// resetPeakRSS, or 0 where /proc is not there.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// ReadResults reads the JSON lines `dusk bench --json` writes.
func ReadResults(path string) ([]Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Result
	dec := json.NewDecoder(f)
	for {
		var r Result
		if err := dec.Decode(&r); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("read %s result %d: %w", path, len(out)+1, err)
		}
		out = append(out, r)
	}
}

// compare prints NEW's seconds over OLD's for each step found in both.
func compare(oldPath, newPath string, w io.Writer) error {
	olds, err := ReadResults(oldPath)
	if err != nil {
		return err
	}
	news, err := ReadResults(newPath)
	if err != nil {
		return err
	}
	type key struct {
		suite, question string
		run             int
	}
	old := map[key]Result{}
	for _, r := range olds {
		old[key{r.Suite, r.Question, r.Run}] = r
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "suite\tquestion\trun\told_s\tnew_s\tratio")
	for _, r := range news {
		o, ok := old[key{r.Suite, r.Question, r.Run}]
		if !ok {
			continue
		}
		ratio := math.Inf(1)
		if o.Seconds > 0 {
			ratio = r.Seconds / o.Seconds
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%.2f\n", r.Suite, r.Question, r.Run, o.Seconds, r.Seconds, ratio)
	}
	return tw.Flush()
}
