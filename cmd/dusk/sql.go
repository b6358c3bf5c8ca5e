package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/duskdata/dusk"
	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/dataframe/sql"
)

const sqlUsage = `usage: dusk sql [--scheduler ADDR | --workers N] [--table NAME=PATH ...]
                [-c QUERY | -f FILE] [--format table|csv|json|parquet] [-o PATH]

Runs SQL (PostgreSQL's dialect) on the local cluster, or on the
scheduler's with --scheduler. Tables are the files --table names (Parquet,
CSV, JSON lines or Avro by their extension; a folder or a glob of Parquet
files) and any file a query reads with read_parquet('...'), read_csv,
read_json or read_avro. With -c or -f the statements given run and their
answers are written in --format (parquet writes the folder -o names);
without either, statements are read from standard input, each ended by ;
(from a terminal with line editing, and a history kept in ~/.dusk_history
that the arrow keys recall), with these commands:

  .tables          the tables named
  .schema [NAME]   a table's columns and types (every table's without NAME)
  .timer on|off    print each statement's time
  .quit            leave

flags:
`

// runSQL runs `dusk sql`.
func runSQL(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dusk sql", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scheduler := fs.String("scheduler", "", "the scheduler's address; none: a local cluster")
	workers := fs.Int("workers", 0, "workers of the local cluster (0: one per core)")
	command := fs.String("c", "", "the statements to run")
	file := fs.String("f", "", "a file of statements to run")
	format := fs.String("format", "table", "how answers are written: table, csv, json (lines) or parquet")
	out := fs.String("o", "", "the folder --format parquet writes")
	var tables tableFlags
	fs.Var(&tables, "table", "NAME=PATH: a table of the files at PATH (repeatable)")
	fs.Usage = func() { fmt.Fprint(stderr, sqlUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("dusk sql: unexpected arguments %q (a query goes after -c)", fs.Args())
	}
	if *format == "parquet" && *out == "" {
		return fmt.Errorf("dusk sql: --format parquet writes a folder: give it with -o")
	}
	if !map[string]bool{"table": true, "csv": true, "json": true, "parquet": true}[*format] {
		return fmt.Errorf("dusk sql: --format %q: table, csv, json or parquet", *format)
	}
	opts := []dusk.Option{dusk.Workers(*workers)}
	if *scheduler != "" {
		opts = append(opts, dusk.Address(*scheduler))
	}
	client, err := dusk.NewClient(ctx, opts...)
	if err != nil {
		return err
	}
	defer client.Close()
	ctx = dusk.WithClient(ctx, client)
	for _, t := range tables {
		f := readTable(t.path)
		if err := f.Err(); err != nil {
			return fmt.Errorf("dusk sql: --table %s: %w", t.name, err)
		}
		client.Register(t.name, f)
	}
	sh := &shell{ctx: ctx, client: client, stdout: stdout, format: *format, out: *out}
	switch {
	case *command != "":
		return sh.run(*command)
	case *file != "":
		text, err := os.ReadFile(*file)
		if err != nil {
			return fmt.Errorf("dusk sql: %w", err)
		}
		return sh.run(string(text))
	}
	return sh.interact(os.Stdin, stderr)
}

type tableFlag struct{ name, path string }

// tableFlags are the --table NAME=PATH flags.
type tableFlags []tableFlag

func (t *tableFlags) String() string { return fmt.Sprint(*t) }
func (t *tableFlags) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("%q: write NAME=PATH", v)
	}
	*t = append(*t, tableFlag{name, path})
	return nil
}

// readTable reads the files at path by their extension; Parquet where it
// has none (a folder, a glob of Parquet files).
func readTable(path string) *dataframe.Frame {
	switch ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(path, "*"))); ext {
	case ".csv":
		return dataframe.ReadCSV(path)
	case ".json", ".jsonl", ".ndjson":
		return dataframe.ReadJSON(path)
	case ".avro":
		return dataframe.ReadAvro(path)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "*.parquet")
	}
	return dataframe.ReadParquet(path)
}

// shell runs statements and writes their answers.
type shell struct {
	ctx         context.Context
	client      *dusk.Client
	stdout      io.Writer
	format, out string
	timer       bool
	written     int // answers written to -o, for their folders' names
}

// run runs each statement of text in turn.
func (sh *shell) run(text string) error {
	for _, stmt := range statements(text) {
		if err := sh.statement(stmt); err != nil {
			return err
		}
	}
	return nil
}

func (sh *shell) statement(stmt string) error {
	start := time.Now()
	if !sql.IsQuery(stmt) {
		if err := sh.client.Exec(sh.ctx, stmt); err != nil {
			return err
		}
		if sh.timer {
			fmt.Fprintf(sh.stdout, "Run Time: %.3fs\n", time.Since(start).Seconds())
		}
		return nil
	}
	f := sh.client.SQL(stmt)
	if err := f.Err(); err != nil {
		return err
	}
	if sh.format == "parquet" {
		dir := sh.out
		if sh.written > 0 {
			dir = fmt.Sprintf("%s.%d", sh.out, sh.written)
		}
		sh.written++
		files, err := f.ToParquet(sh.ctx, dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(sh.stdout, "wrote %d files to %s\n", len(files), dir)
	} else {
		tab, err := f.Compute(sh.ctx)
		if err != nil {
			return err
		}
		err = write(sh.stdout, sh.format, tab)
		tab.Release()
		if err != nil {
			return err
		}
	}
	if sh.timer {
		fmt.Fprintf(sh.stdout, "Run Time: %.3fs\n", time.Since(start).Seconds())
	}
	return nil
}

// write writes an answer in the format named.
func write(w io.Writer, format string, tab *dataframe.Table) error {
	switch format {
	case "csv":
		cw := csv.NewWriter(w)
		names := tab.Schema().Fields()
		head := make([]string, len(names))
		for i, f := range names {
			head[i] = f.Name
		}
		cw.Write(head)
		for r := range tab.Rows() {
			rec := make([]string, len(names))
			for i, f := range names {
				v, err := r.Value(f.Name)
				if err != nil {
					return err
				}
				if v != nil {
					rec[i] = fmt.Sprint(v)
				}
			}
			cw.Write(rec)
		}
		cw.Flush()
		return cw.Error()
	case "json":
		enc := json.NewEncoder(w)
		for r := range tab.Rows() {
			obj := map[string]any{}
			for _, f := range tab.Schema().Fields() {
				v, err := r.Value(f.Name)
				if err != nil {
					return err
				}
				obj[f.Name] = v
			}
			if err := enc.Encode(obj); err != nil {
				return err
			}
		}
		return nil
	}
	_, err := fmt.Fprintln(w, tab.String())
	return err
}

// interact reads statements, each ended by ;, and dot commands: from a
// terminal with line editing and a history kept in ~/.dusk_history (the
// arrow keys recall earlier lines), else line by line from in. An error is
// printed and the shell goes on.
func (sh *shell) interact(in io.Reader, stderr io.Writer) error {
	next := lineReader(in)
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		restore, read, err := terminalReader(f, sh.stdout)
		if err != nil {
			return err
		}
		defer restore()
		next, stderr = read, sh.stdout // the terminal's writer puts \r\n
	}
	var pending strings.Builder
	for {
		line, err := next(strings.TrimSpace(pending.String()) != "")
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if strings.TrimSpace(pending.String()) == "" && strings.HasPrefix(strings.TrimSpace(line), ".") {
			quit, err := sh.dot(strings.Fields(strings.TrimSpace(line)))
			if err != nil {
				fmt.Fprintln(stderr, err)
			}
			if quit {
				return nil
			}
			continue
		}
		pending.WriteString(line)
		pending.WriteByte('\n')
		stmts, rest := complete(pending.String())
		for _, s := range stmts {
			if err := sh.statement(s); err != nil {
				fmt.Fprintln(stderr, err)
			}
		}
		pending.Reset()
		pending.WriteString(rest)
	}
	if s := strings.TrimSpace(pending.String()); s != "" {
		if err := sh.statement(s); err != nil {
			fmt.Fprintln(stderr, err)
		}
	}
	return nil
}

// lineReader reads lines from in; more says a statement continues.
func lineReader(in io.Reader) func(more bool) (string, error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	return func(bool) (string, error) {
		if sc.Scan() {
			return sc.Text(), nil
		}
		if err := sc.Err(); err != nil {
			return "", err
		}
		return "", io.EOF
	}
}

// terminalReader puts the terminal f in raw mode and reads edited lines
// from it, with a prompt, recording them in the history file; restore
// puts the terminal back.
func terminalReader(f *os.File, out io.Writer) (restore func(), read func(more bool) (string, error), err error) {
	state, err := term.MakeRaw(int(f.Fd()))
	if err != nil {
		return nil, nil, err
	}
	t := term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{f, out}, "dusk> ")
	hist := openHistory()
	t.History = hist
	return func() { term.Restore(int(f.Fd()), state); hist.close() }, func(more bool) (string, error) {
		t.SetPrompt(map[bool]string{false: "dusk> ", true: "   ...> "}[more])
		return t.ReadLine()
	}, nil
}

// history is the shell's history: the lines of ~/.dusk_history, the last
// 1,000, with each new line appended to the file.
type history struct {
	lines []string // oldest first
	file  *os.File
}

func openHistory() *history {
	h := &history{}
	home, err := os.UserHomeDir()
	if err != nil {
		return h
	}
	path := filepath.Join(home, ".dusk_history")
	if b, err := os.ReadFile(path); err == nil {
		h.lines = strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		h.lines = h.lines[max(0, len(h.lines)-1000):]
	}
	h.file, _ = os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	return h
}

func (h *history) Add(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	h.lines = append(h.lines, line)
	if h.file != nil {
		fmt.Fprintln(h.file, line)
	}
}
func (h *history) Len() int        { return len(h.lines) }
func (h *history) At(i int) string { return h.lines[len(h.lines)-1-i] }
func (h *history) close() {
	if h.file != nil {
		h.file.Close()
	}
}

// dot runs a dot command; quit reports .quit.
func (sh *shell) dot(words []string) (quit bool, err error) {
	switch words[0] {
	case ".quit", ".exit":
		return true, nil
	case ".tables":
		fmt.Fprintln(sh.stdout, strings.Join(sh.client.Tables(), "  "))
	case ".schema":
		names := sh.client.Tables()
		if len(words) > 1 {
			names = words[1:]
		}
		for _, n := range names {
			f := sh.client.SQL("select * from " + n)
			if err := f.Err(); err != nil {
				return false, err
			}
			fmt.Fprintf(sh.stdout, "%s(\n", n)
			for i, fl := range f.Schema().Fields() {
				sep := ","
				if i == f.Schema().NumFields()-1 {
					sep = ""
				}
				fmt.Fprintf(sh.stdout, "  %s %s%s\n", fl.Name, fl.Type, sep)
			}
			fmt.Fprintln(sh.stdout, ")")
		}
	case ".timer":
		if len(words) != 2 || words[1] != "on" && words[1] != "off" {
			return false, errors.New(".timer on|off")
		}
		sh.timer = words[1] == "on"
	case ".help":
		fmt.Fprint(sh.stdout, ".tables  .schema [NAME]  .timer on|off  .quit\n")
	default:
		return false, fmt.Errorf("unknown command %s (.help lists them)", words[0])
	}
	return false, nil
}

// statements splits text at the semicolons outside quotes and comments.
func statements(text string) []string {
	stmts, rest := complete(text)
	if rest = strings.TrimSpace(rest); rest != "" {
		stmts = append(stmts, rest)
	}
	return stmts
}

// complete splits off the statements of text ended by a semicolon outside
// quotes and comments, and returns what follows the last.
func complete(text string) (stmts []string, rest string) {
	start := 0
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == ';':
			if s := strings.TrimSpace(text[start:i]); s != "" {
				stmts = append(stmts, s)
			}
			start = i + 1
		}
	}
	return stmts, text[start:]
}
