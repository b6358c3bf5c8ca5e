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
	"sync"
	"text/tabwriter"
	"time"

	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/config"
	"github.com/duskdata/dusk/internal/security"
	"github.com/duskdata/dusk/io/storage"
)

// Cluster says where a suite runs.
type Cluster struct {
	Workers     int    // workers of a local cluster
	Scheduler   string // address of a running scheduler; "" for a local cluster
	MemoryLimit int64  // each local worker's memory limit in bytes; 0 for none
	// Target, when positive, is the local workers' target fraction: the
	// share of their limit that results may take before they spill.
	Target float64
	TLS    security.Files // the client's TLS material for Scheduler, if it wants TLS
}

// Session is a connection to a cluster.
type Session struct {
	Ctx   context.Context // computations on it run on the cluster
	Close func()
	// Spilled returns the in-memory bytes of the results the workers have
	// moved to disk (out) and read back (in) since they started.
	Spilled func(ctx context.Context) (out, in int64, err error)
	// SpilledNow says Spilled reads the workers' counts as they are (a
	// local cluster's), not their last reports, which come every second.
	SpilledNow bool
	// SchedulerMemory returns the scheduler process's resident memory
	// now and at its peak; nil where it cannot be asked.
	SchedulerMemory func(ctx context.Context) (rss, peak int64, err error)
}

// Connect reaches the cluster the suites run on. bench cannot import the
// dusk package (it reaches the drivers), so the command's caller
// supplies it.
type Connect func(ctx context.Context, c Cluster) (*Session, error)

// Result is one timed step of a suite, one line of `dusk bench --json`.
type Result struct {
	Suite        string    `json:"suite"`    // "groupby", "join", "tasks", "shuffle", "spill", "io", "bigsum", "gpu", "tpch", "scale"
	Question     string    `json:"question"` // "load", "q1".."q10" ("q22" in tpch), "j1".."j5", or the suite's step
	Run          int       `json:"run"`      // 1 or 2
	Seconds      float64   `json:"seconds"`
	Rows         int64     `json:"rows"`           // rows of the answer; tasks run; elements summed
	Checksum     []float64 `json:"checksum"`       // sums of the answer's measure columns, in column order
	PeakRSSBytes int64     `json:"peak_rss_bytes"` // this process's peak resident memory during the step; 0 where unknown
	// SchedulerPeakRSSBytes is the scheduler process's peak resident
	// memory since it started (tasks suite; the local cluster's is this
	// process's).
	SchedulerPeakRSSBytes int64   `json:"scheduler_peak_rss_bytes,omitempty"`
	TasksPerSec           float64 `json:"tasks_per_sec,omitempty"` // tasks suite
	BytesPerSec           float64 `json:"bytes_per_sec,omitempty"` // shuffle, spill, io and bigsum suites
	Scale                 int64   `json:"scale,omitempty"`         // scale suite: rows of the table the step ran on
	CPU                   *CPUUse `json:"cpu,omitempty"`           // the cores a local cluster's step kept busy
	// Machine is the computer it ran on: CPU model, cores, extensions.
	Machine string `json:"machine,omitempty"`
}

const usage = `usage: dusk bench SUITE [flags]

  gen      write db-benchmark's groupby and join tables (CSV and Parquet) to --data
  gen tpch write the TPC-H tables at scale factor --sf to --data (dusk bench tpch -h)
  groupby  the 10 groupby questions on G1_N_1e2_0_0.csv
  scale    the groupby questions at each of --sizes (1e7,1e8 unless given;
           add 5e8 for a table beyond memory), then each question's growth
           from one size to the next beside the rows' growth
  join     the 5 join questions on J1_N_{NA,1e1,1e4,1e7}_0_0.csv (N/1e6, N/1e3 and N rows)
  tasks    N/100 trivial tasks (or --tasks N): tasks per second, the overhead
           of one, and the scheduler's peak memory a task
  shuffle  the groupby table of N rows shuffled by id6: GB/s of its memory
  spill    N×8 random float64s persisted through workers of --memory-limit
           (default: a quarter of the data, plus 256 MiB for the process, each),
           then summed: MB/s out to disk and back in. On a local cluster the
           workers keep a quarter of their share in memory, whatever the sizes
  io       the groupby table read and written as CSV and as Parquet: MB/s
  bigsum   the sum of a square matrix of about 160·N random float64s, made
           chunk by chunk: elements per second
  gpu      N float64s summed by N int64 keys of 100 values, on the GPU (the
           copies to and from it timed apart) and on every core with Dusk's
           CPU kernels; needs an NVIDIA GPU and driver
  tpch     the 22 TPC-H queries on the tables in --data (dusk bench tpch -h)
  kernels  the kernel table over a million values beside a copy of the same
           bytes, on this machine alone (dusk bench kernels -h)
  compare  OLD.json NEW.json: seconds of NEW over OLD per suite, question and run
  check    --rows N FILE.json: the groupby answers of N rows in FILE against
           checksums computed in one pass over the generator's rows (any N;
           q6's median is not checked)

flags (N may be written 1e7; files are written if absent):
  --rows N  --data DIR  --questions q1,q3  --json FILE  --partitions P  --sizes N,N
  --workers W  --scheduler ADDR  --memory-limit BYTES (2GB, 512MiB)  --cpuprofile FILE
  --tls-ca-file F --tls-cert F --tls-key F (a scheduler that wants TLS)
`

var suites = []string{"gen", "groupby", "join", "tasks", "shuffle", "spill", "io", "bigsum", "gpu", "tpch", "scale", "kernels"}

// Suites names what `dusk bench` runs: the suites, then compare and check.
func Suites() []string { return append(slices.Clone(suites), "compare", "check") }

// Main runs `dusk bench` with args (those after "bench"). connect is used
// by every suite but gen.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, connect Connect) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return errors.New("no suite")
		}
		return nil
	}
	cmd, args := args[0], args[1:]
	if cmd == "compare" {
		if len(args) != 2 {
			return errors.New("compare wants OLD.json NEW.json")
		}
		return compare(args[0], args[1], stdout)
	}
	if cmd == "check" {
		return check(args, stdout)
	}
	if !slices.Contains(suites, cmd) {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown suite %q", cmd)
	}
	switch {
	case cmd == "gen" && len(args) > 0 && args[0] == "tpch":
		return genTPCH(args[1:], stderr)
	case cmd == "tpch":
		return runTPCH(ctx, args, stdout, stderr, connect)
	case cmd == "kernels":
		return runKernels(args, stdout, stderr)
	}
	fs := flag.NewFlagSet("dusk bench "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	sf := addSuiteFlags(fs)
	rows, dir, questions, partitions, sizes := sf.rows, sf.dir, sf.questions, sf.partitions, sf.sizes
	rf := addRunFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	n, err := parseCount(*rows)
	if err != nil {
		return fmt.Errorf("--rows: %w", err)
	}
	limit, err := parseBytes(rf.memLimit)
	if err != nil {
		return fmt.Errorf("--memory-limit: %w", err)
	}
	data, err := dataAt(*dir)
	if err != nil {
		return err
	}
	if cmd == "gen" {
		if data.file != "" {
			return fmt.Errorf("--data %s: gen writes a directory, not one file", data.file)
		}
		return gen(data.dir, n, stderr)
	}
	if cmd == "scale" && data.file != "" {
		return fmt.Errorf("--data %s: scale reads a table of each size, so it takes a directory", data.file)
	}
	ids, err := chooseQuestions(cmd, *questions)
	if err != nil {
		return err
	}
	var target float64
	if cmd == "spill" && rf.scheduler == "" {
		if limit == 0 {
			limit = int64(n)*8*8/4 + 256<<20 // a quarter of the data, and room for the process
		}
		// Whatever the sizes, a quarter of each worker's share of the data
		// stays in memory and the rest spills: the suite measures spilling.
		target = min(0.6, float64(n)*64/float64(4*max(rf.workers, 1))/float64(limit))
	}
	r, done, err := rf.start(ctx, cmd, limit, target, stdout, stderr, connect)
	if err != nil {
		return err
	}
	defer done()
	switch cmd {
	case "groupby":
		err = r.groupby(data, n, *partitions, ids)
	case "scale":
		err = r.scaleSuite(data.dir, *sizes, *partitions, ids)
	case "join":
		err = r.join(data, n, *partitions, ids)
	case "tasks":
		count := max(n/100, 1)
		if *sf.tasks != "" {
			if count, err = parseCount(*sf.tasks); err != nil {
				return fmt.Errorf("--tasks: %w", err)
			}
		}
		err = r.tasks(count)
	case "shuffle":
		err = r.shuffle(data, n, *partitions)
	case "spill":
		err = r.spill(n, *partitions)
	case "io":
		err = r.io(data, n, *partitions)
	case "bigsum":
		err = r.bigsum(n)
	case "gpu":
		err = r.gpuSuite(n)
	}
	return errors.Join(err, r.err)
}

// suiteFlags are the flags of the suites on db-benchmark's tables.
type suiteFlags struct {
	rows, dir, questions, sizes *string
	tasks                       *string
	partitions                  *int
}

func addSuiteFlags(fs *flag.FlagSet) suiteFlags {
	return suiteFlags{
		rows:       fs.String("rows", "1e7", "rows of the groupby table and of the join's X (1e7 or 10000)"),
		dir:        fs.String("data", "data", "directory of the data files, or the one file to read"),
		questions:  fs.String("questions", "", "comma-separated questions to run; all when empty"),
		partitions: fs.Int("partitions", 0, "partitions of the data; 0 for the readers' default (64 MiB of CSV each)"),
		sizes:      fs.String("sizes", "1e7,1e8", "scale: the groupby table's sizes, in rows, smallest first"),
		tasks:      fs.String("tasks", "", "tasks: how many trivial tasks (1e6); default --rows/100"),
	}
}

// The flags of every suite, for a configuration file's bench: section and
// DUSK_* variables (`dusk config bench`).
func init() {
	config.Register("bench", func() *flag.FlagSet {
		fs := flag.NewFlagSet("bench", flag.ContinueOnError)
		addSuiteFlags(fs)
		addRunFlags(fs)
		for _, add := range []func(*flag.FlagSet){
			func(fs *flag.FlagSet) { addTPCHFlags(fs) },
			func(fs *flag.FlagSet) { addGenTPCHFlags(fs) },
		} {
			more := flag.NewFlagSet("", flag.ContinueOnError)
			add(more)
			more.VisitAll(func(f *flag.Flag) {
				if fs.Lookup(f.Name) == nil {
					fs.Var(f.Value, f.Name, f.Usage)
				}
			})
		}
		return fs
	})
}

// parseFlags fills fs from a configuration file, DUSK_* variables and args.
func parseFlags(fs *flag.FlagSet, args []string) error {
	_, err := config.Parse("bench", fs, args, os.Environ())
	return err
}

// runFlags are the flags of every suite that runs on a cluster.
type runFlags struct {
	jsonPath, scheduler, memLimit, cpuProfile string
	workers                                   int
	tls                                       security.Files
}

func addRunFlags(fs *flag.FlagSet) *runFlags {
	rf := &runFlags{}
	fs.StringVar(&rf.jsonPath, "json", "", "file to append the results to, one JSON object a line")
	fs.IntVar(&rf.workers, "workers", runtime.NumCPU(), "workers of the local cluster")
	fs.StringVar(&rf.scheduler, "scheduler", "", "address of a running scheduler instead of a local cluster")
	fs.StringVar(&rf.memLimit, "memory-limit", "", "memory limit of each local worker, such as 2GB; none by default")
	fs.StringVar(&rf.cpuProfile, "cpuprofile", "", "file to write a CPU profile of this process to (the local cluster's workers run in it)")
	security.AddFlags(fs, &rf.tls)
	return rf
}

// start begins a suite's run: the CPU profile, the cluster (local workers
// of limit bytes each), the JSON file and the table's header. done ends
// them.
func (rf *runFlags) start(ctx context.Context, suite string, limit int64, target float64, stdout, stderr io.Writer, connect Connect) (r *runner, done func(), err error) {
	if connect == nil {
		return nil, nil, errors.New("no cluster to run on (nil Connect)")
	}
	var undo []func()
	undoAll := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	done = undoAll
	defer func() {
		if err != nil {
			undoAll() // the returns of a failure set done to nil
		}
	}()
	stop, err := startProfile(rf.cpuProfile)
	if err != nil {
		return nil, nil, err
	}
	undo = append(undo, stop)
	sess, err := connect(ctx, Cluster{Workers: rf.workers, Scheduler: rf.scheduler, MemoryLimit: limit, Target: target, TLS: rf.tls})
	if err != nil {
		return nil, nil, err
	}
	undo = append(undo, sess.Close)
	r = &runner{ctx: sess.Ctx, sess: sess, suite: suite, out: stdout, progress: terminal(stderr)}
	if rf.scheduler == "" {
		r.cores = runtime.NumCPU()
	}
	if rf.jsonPath != "" {
		f, err := os.OpenFile(rf.jsonPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, nil, err
		}
		undo = append(undo, func() { f.Close() })
		r.json = json.NewEncoder(f)
	}
	r.header()
	return r, done, nil
}

// startProfile starts a CPU profile of this process into path, unless
// path is empty; stop ends it.
func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// chooseQuestions returns the questions of a groupby or join run: those
// listed, or all.
func chooseQuestions(suite, list string) ([]string, error) {
	var ids []string
	switch suite {
	case "groupby", "scale":
		for _, q := range GroupByQuestions {
			ids = append(ids, q.ID)
		}
	case "join":
		for _, q := range JoinQuestions {
			ids = append(ids, q.ID)
		}
	default:
		if list != "" {
			return nil, fmt.Errorf("--questions is for groupby, scale and join, not %s", suite)
		}
		return nil, nil
	}
	if list == "" {
		return ids, nil
	}
	want := strings.Split(list, ",")
	for _, q := range want {
		if !slices.Contains(ids, q) {
			return nil, fmt.Errorf("no %s question %q; there are %s", suite, q, strings.Join(ids, ","))
		}
	}
	return want, nil
}

// parseBytes reads a size such as 2GB, 512MiB or 1000000; "" is 0.
func parseBytes(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	num, mult := s, 1.0
	for _, u := range units {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f <= 0 || f*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a size such as 2GB, 512MiB or 1000000", s)
	}
	return int64(f * mult), nil
}

// terminal reports whether w is a terminal, where progress is shown.
func terminal(w io.Writer) io.Writer {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return w
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

// gen writes the groupby table and the join tables for n rows in dir, as
// CSV and as Parquet, keeping those already there.
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
	pq := parquetName(p)
	if _, err := os.Stat(pq); err != nil {
		if err := writeParquet(pq, GroupByRecords(n, 100, 1, rowGroups(n))); err != nil {
			return err
		}
		fmt.Fprintf(log, "%s (%.1fs)\n", pq, time.Since(start).Seconds())
	}
	_, err = joinFiles(dir, n, true, log)
	return err
}

// parquetName is the Parquet file beside a CSV file of the same table.
func parquetName(csvPath string) string { return strings.TrimSuffix(csvPath, ".csv") + ".parquet" }

// rowGroups is how many records of about a million rows n rows make.
func rowGroups(n int) int { return (n + 1<<20 - 1) >> 20 }

// joinFiles returns the paths of the join tables' CSV files for n rows in
// dir, writing them first, atomically, if any is missing; with parquet,
// their Parquet files too.
func joinFiles(dir string, n int, parquet bool, log io.Writer) ([4]string, error) {
	var paths [4]string
	missing := false
	for i, name := range JoinFileNames(n) {
		paths[i] = filepath.Join(dir, name)
		if _, err := os.Stat(paths[i]); err != nil {
			missing = true
		}
		if _, err := os.Stat(parquetName(paths[i])); err != nil && parquet {
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
		if _, err := os.Stat(paths[i]); err != nil {
			cols := tab.columns()
			err := storage.WriteFile(paths[i], true, func(w io.Writer) error { return writeCSV(w, cols) })
			if err != nil {
				return paths, err
			}
			fmt.Fprintf(log, "%s (%.1fs)\n", paths[i], time.Since(start).Seconds())
		}
		if pq := parquetName(paths[i]); parquet {
			if _, err := os.Stat(pq); err != nil {
				if err := writeParquet(pq, tab.Records(rowGroups(tab.Len()))); err != nil {
					return paths, err
				}
				fmt.Fprintf(log, "%s (%.1fs)\n", pq, time.Since(start).Seconds())
			}
		}
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
	ctx      context.Context
	sess     *Session
	suite    string
	out      io.Writer
	progress io.Writer // a terminal to show the step running on; nil for none
	json     *json.Encoder
	err      error    // the first error writing the JSON file
	scale    int64    // the scale suite: rows of the table now run on
	cores    int      // the machine's cores, for a local cluster's cpuMeter; 0 for a remote one
	machine  string   // this computer, as machine() names it
	results  []Result // every step reported
}

// rowFormat lays out the table in fixed columns, so each row can be printed
// as soon as it is timed.
const rowFormat = "%-13s  %3s  %9s  %11s  %13s  %20s  %s\n"

func (r *runner) header() {
	r.machine = machine()
	fmt.Fprintf(r.out, "machine: %s\n", r.machine)
	fmt.Fprintf(r.out, rowFormat, "question", "run", "seconds", "rows", "rate", "cores", "checksum")
}

// step shows which step is running, until report prints its row.
func (r *runner) step(question string, run int) {
	if r.progress != nil {
		fmt.Fprintf(r.progress, "\r%s %s run %d …", r.suite, question, run)
	}
}

func (r *runner) report(res Result) {
	if r.progress != nil {
		fmt.Fprint(r.progress, "\r\033[K")
	}
	res.Suite, res.Scale, res.Machine = r.suite, r.scale, r.machine
	r.results = append(r.results, res)
	sums := make([]string, len(res.Checksum))
	for i, s := range res.Checksum {
		sums[i] = strconv.FormatFloat(s, 'g', 10, 64)
	}
	rate := ""
	switch {
	case res.TasksPerSec > 0:
		rate = fmt.Sprintf("%.0f tasks/s", res.TasksPerSec)
	case res.BytesPerSec >= 1e9:
		rate = fmt.Sprintf("%.2f GB/s", res.BytesPerSec/1e9)
	case res.BytesPerSec > 0:
		rate = fmt.Sprintf("%.0f MB/s", res.BytesPerSec/1e6)
	}
	cores := ""
	if res.CPU != nil { // the cores busy on average (the share of the time fewer were), and the kernel's share
		cores = fmt.Sprintf("%.2f (%.0f%%) sys %.0f%%", res.CPU.Cores, 100*res.CPU.Short, 100*res.CPU.System)
	}
	fmt.Fprintf(r.out, rowFormat, res.Question, strconv.Itoa(res.Run), strconv.FormatFloat(res.Seconds, 'f', 3, 64),
		strconv.FormatInt(res.Rows, 10), rate, cores, strings.Join(sums, " "))
	if r.json != nil && r.err == nil {
		if res.Checksum == nil {
			res.Checksum = []float64{}
		}
		r.err = r.json.Encode(res)
	}
}

// load reads the CSV files into the cluster's memory, timed as one step;
// the first file in partitions parts when partitions > 0, the others in
// parts of the same size.
func (r *runner) load(partitions int, paths ...string) ([]*dataframe.Frame, error) {
	r.step("load", 1)
	var opts dataframe.CSVOptions
	if st, err := os.Stat(paths[0]); err == nil && partitions > 0 {
		opts.BlockSize = st.Size()/int64(partitions) + 1
	}
	resetPeakRSS()
	cpu := startCPU(r.cores)
	start := time.Now()
	// The files load at once, so that the workers' threads stay busy while
	// the last blocks of one file are parsed.
	frames := make([]*dataframe.Frame, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			frames[i], errs[i] = dataframe.ReadCSV(p, opts).Persist(r.ctx)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("load %s: %w", p, errs[i])
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, f := range frames {
			if f != nil {
				f.Release()
			}
		}
		return nil, err
	}
	rows, err := frames[0].Len(r.ctx)
	if err != nil {
		return nil, err
	}
	r.report(Result{Question: "load", Run: 1, Seconds: time.Since(start).Seconds(), Rows: rows, PeakRSSBytes: peakRSS(), CPU: cpu.finish()})
	return frames, nil
}

// question runs one question twice. Each run's time is its answer computed
// and held in the workers' memory (Persist) and its rows counted there; the
// checksum is computed afterwards, untimed.
// bytes, when above 0, is what a run moves, for its rate.
func (r *runner) question(id string, bytes int64, build func() (*dataframe.Frame, error)) error {
	return r.checkedQuestion(id, bytes, build, nil)
}

// checkedQuestion is question, with check run on each answer before its
// checksum: an answer it refuses ends the suite with its error.
func (r *runner) checkedQuestion(id string, bytes int64, build func() (*dataframe.Frame, error), check func(*dataframe.Frame) error) error {
	for run := 1; run <= 2; run++ {
		f, err := build()
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		r.step(id, run)
		resetPeakRSS()
		cpu := startCPU(r.cores)
		start := time.Now()
		p, err := f.Persist(r.ctx)
		if err != nil {
			cpu.finish()
			return fmt.Errorf("%s run %d: %w", id, run, err)
		}
		rows, err := p.Len(r.ctx)
		secs, rss, use := time.Since(start).Seconds(), peakRSS(), cpu.finish()
		if err != nil {
			p.Release()
			return fmt.Errorf("%s run %d: %w", id, run, err)
		}
		if check != nil {
			if err := check(p); err != nil {
				p.Release()
				return fmt.Errorf("%s run %d: %w", id, run, err)
			}
		}
		sums, err := Checksum(r.ctx, p)
		p.Release()
		if err != nil {
			return fmt.Errorf("%s run %d: %w", id, run, err)
		}
		r.report(Result{Question: id, Run: run, Seconds: secs, Rows: rows, Checksum: sums, PeakRSSBytes: rss, BytesPerSec: float64(bytes) / secs, CPU: use})
	}
	return nil
}

// loadGroupBy loads the groupby table of n rows from its CSV file (see
// dataset.groupBy); a file named by --data must hold n rows.
func (r *runner) loadGroupBy(data dataset, n, partitions int) (*dataframe.Frame, error) {
	path, err := data.groupBy(n)
	if err != nil {
		return nil, err
	}
	frames, err := r.load(partitions, path)
	if err != nil {
		return nil, err
	}
	if rows, err := frames[0].Len(r.ctx); err == nil && rows != int64(n) {
		frames[0].Release()
		return nil, fmt.Errorf("--data %s holds %d rows, and --rows asks for %d", path, rows, n)
	}
	return frames[0], nil
}

func (r *runner) groupby(data dataset, n, partitions int, ids []string) error {
	x, err := r.loadGroupBy(data, n, partitions)
	if err != nil {
		return err
	}
	defer x.Release()
	for _, id := range ids {
		if err := r.question(id, 0, func() (*dataframe.Frame, error) { return GroupByQuery(id, x) }); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) join(data dataset, n, partitions int, ids []string) error {
	paths, err := data.join(n)
	if err != nil {
		return err
	}
	t, err := r.load(partitions, paths[:]...)
	if err != nil {
		return err
	}
	defer func() {
		for _, f := range t {
			f.Release()
		}
	}()
	for _, id := range ids {
		if err := r.question(id, 0, func() (*dataframe.Frame, error) { return JoinQuery(id, t[0], t[1], t[2], t[3]) }); err != nil {
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
