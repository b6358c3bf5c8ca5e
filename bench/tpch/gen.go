package tpch

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/pingcap/go-tpc/tpch/dbgen"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/io/parquet"
	"github.com/duskdata/dusk/io/storage"
)

// FileRows is about how many rows each file of a table kept as a folder
// holds; a table of more rows than this is written as a folder.
const FileRows = 1 << 20

// genMu serializes Generate: the generator keeps its state in globals.
var genMu sync.Mutex

// Generate writes the eight TPC-H tables at scale factor sf into dir as
// Parquet, with the official generator's rows: DIR/<table>.parquet, or a
// folder DIR/<table>/ of files of about FileRows rows for a larger table.
// Tables already in dir are kept. Progress goes to log.
func Generate(dir string, sf float64, log io.Writer) error {
	if err := checkScale(sf); err != nil {
		return fmt.Errorf("tpch: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sinks := map[dbgen.Table]*sink{}
	var runs []dbgen.Table
	want := func(run dbgen.Table, parts ...dbgen.Table) {
		missing := false
		for _, p := range parts {
			t := tableNamed(dbgenNames[p])
			if _, err := findTable(dir, t.name); err == nil {
				sinks[p] = &sink{} // there already: its rows are dropped
				continue
			}
			sinks[p] = newSink(dir, t, sf)
			missing = true
		}
		if missing {
			runs = append(runs, run)
		}
	}
	want(dbgen.TOrderLine, dbgen.TOrder, dbgen.TLine)
	want(dbgen.TPartPsupp, dbgen.TPart, dbgen.TPsupp)
	want(dbgen.TSupp, dbgen.TSupp)
	want(dbgen.TCust, dbgen.TCust)
	want(dbgen.TNation, dbgen.TNation)
	want(dbgen.TRegion, dbgen.TRegion)
	if len(runs) == 0 {
		return nil
	}
	genMu.Lock()
	defer genMu.Unlock()
	start := time.Now()
	dbgen.InitDbGenScale(sf)
	fmt.Fprintf(log, "tpch: generator ready (%.1fs)\n", time.Since(start).Seconds())
	loaders := map[dbgen.Table]dbgen.Loader{}
	for t, s := range sinks {
		loaders[t] = s
	}
	genErr := dbgen.DbGen(loaders, runs)
	var errs []error
	for _, s := range sinks {
		if err := s.finish(genErr == nil); err != nil {
			errs = append(errs, err)
		} else if s.table != nil && genErr == nil {
			fmt.Fprintf(log, "tpch: %s, %d rows (%.1fs)\n", s.path, s.rows, time.Since(start).Seconds())
		}
	}
	if genErr != nil {
		return fmt.Errorf("tpch: generate SF%g in %s: %w", sf, dir, genErr)
	}
	return errors.Join(errs...)
}

// dbgenNames are the generator's tables by their TPC-H names.
var dbgenNames = map[dbgen.Table]string{
	dbgen.TLine: "lineitem", dbgen.TOrder: "orders", dbgen.TPsupp: "partsupp", dbgen.TPart: "part",
	dbgen.TCust: "customer", dbgen.TSupp: "supplier", dbgen.TNation: "nation", dbgen.TRegion: "region",
}

// sink is the generator's loader for one table: it gathers rows into Arrow
// records of FileRows rows and writes each as it fills, on a goroutine of
// its own so that generating and encoding overlap. A sink with no table
// drops what it is given.
type sink struct {
	table  *table
	path   string // the file, or the folder's final name
	folder bool
	tmp    string // the folder being written, renamed to path at the end
	b      *array.RecordBuilder
	rows   int64
	files  int
	writes chan arrow.Record
	done   chan error
}

func newSink(dir string, t *table, sf float64) *sink {
	s := &sink{table: t, folder: t.Rows(sf) > FileRows, b: array.NewRecordBuilder(memory.DefaultAllocator, t.schema(sf))}
	s.path = filepath.Join(dir, t.name+".parquet")
	if s.folder {
		s.path = filepath.Join(dir, t.name)
		// A folder of its own, so that another process generating into
		// dir at the same time writes beside it, not into it.
		s.tmp = fmt.Sprintf("%s.tmp-%d-%d", s.path, os.Getpid(), time.Now().UnixNano())
	}
	s.writes, s.done = make(chan arrow.Record, 1), make(chan error, 1)
	go func() {
		var err error
		for rec := range s.writes {
			if err == nil {
				err = s.write(rec)
			}
			rec.Release()
		}
		s.done <- err
	}()
	return s
}

// write writes one record: the table's file, or the folder's next file.
func (s *sink) write(rec arrow.Record) error {
	path := s.path
	if s.folder {
		if err := os.MkdirAll(s.tmp, 0o755); err != nil {
			return err
		}
		s.files++
		path = filepath.Join(s.tmp, fmt.Sprintf("%s-%04d.parquet", s.table.name, s.files))
	}
	return storage.WriteFile(path, true, func(w io.Writer) error {
		return parquet.Write(w, rec.Schema(), []arrow.Record{rec}, parquet.WriteOptions{})
	})
}

// flushRecord hands the rows gathered so far to the writer.
func (s *sink) flushRecord() {
	if s.b.Field(0).Len() > 0 {
		s.writes <- s.b.NewRecord()
	}
}

// finish writes what remains and waits for the writer; with ok false (the
// generator failed) it leaves nothing behind: a file table is written only
// here, a folder only renamed into place here.
func (s *sink) finish(ok bool) error {
	if s.table == nil {
		return nil
	}
	if ok {
		s.flushRecord() // a file table's only record, or a folder's last
	}
	close(s.writes)
	err := <-s.done
	s.b.Release()
	if s.folder {
		if err == nil && ok {
			err = os.Rename(s.tmp, s.path)
			if _, statErr := os.Stat(s.path); err != nil && statErr == nil {
				err = nil // another process finished the same table first
			}
		}
		os.RemoveAll(s.tmp) // gone after a rename; else what was written
	}
	if err != nil {
		return fmt.Errorf("tpch: write %s: %w", s.path, err)
	}
	return nil
}

// Flush is called by the generator after each table; rows are flushed by
// finish instead, so that a table of several generator runs is one file.
func (s *sink) Flush() error { return nil }

// Load appends one of the generator's rows to the table.
func (s *sink) Load(item any) error {
	if s.table == nil {
		return nil
	}
	r := rowAppender{b: s.b}
	switch s.table.name {
	case "lineitem":
		for _, l := range item.(*dbgen.Order).Lines {
			r.appendLine(&l)
			s.added(&r)
		}
		return r.err
	case "orders":
		o := item.(*dbgen.Order)
		r.keys(int64(o.OKey), int64(o.CustKey))
		r.str(string(o.Status))
		r.money(int64(o.TotalPrice))
		r.date(o.Date)
		r.str(o.OrderPriority, o.Clerk)
		r.int(o.ShipPriority)
		r.str(o.Comment)
	case "partsupp":
		for _, ps := range item.(*dbgen.Part).S {
			r.keys(int64(ps.PartKey), int64(ps.SuppKey))
			r.int(int64(ps.Qty))
			r.money(int64(ps.SCost))
			r.str(ps.Comment)
			s.added(&r)
		}
		return r.err
	case "part":
		p := item.(*dbgen.Part)
		r.keys(int64(p.PartKey))
		r.str(p.Name, p.Mfgr, p.Brand, p.Type)
		r.int(int64(p.Size))
		r.str(p.Container)
		r.money(int64(p.RetailPrice))
		r.str(p.Comment)
	case "customer":
		c := item.(*dbgen.Cust)
		r.keys(int64(c.CustKey))
		r.str(c.Name, c.Address)
		r.keys(int64(c.NationCode))
		r.str(c.Phone)
		r.money(int64(c.Acctbal))
		r.str(c.MktSegment, c.Comment)
	case "supplier":
		p := item.(*dbgen.Supp)
		r.keys(int64(p.SuppKey))
		r.str(p.Name, p.Address)
		r.keys(int64(p.NationCode))
		r.str(p.Phone)
		r.money(int64(p.Acctbal))
		r.str(p.Comment)
	case "nation":
		n := item.(*dbgen.Nation)
		r.keys(int64(n.Code))
		r.str(n.Text)
		r.keys(int64(n.Join))
		r.str(n.Comment)
	case "region":
		n := item.(*dbgen.Region)
		r.keys(int64(n.Code))
		r.str(n.Text, n.Comment)
	}
	s.added(&r)
	return r.err
}

// added counts the row just appended, and starts the folder's next file
// when this one is full.
func (s *sink) added(r *rowAppender) {
	s.rows++
	r.col = 0
	if s.folder && s.b.Field(0).Len() >= FileRows {
		s.flushRecord()
	}
}

func (r *rowAppender) appendLine(l *dbgen.LineItem) {
	r.keys(int64(l.OKey), int64(l.PartKey), int64(l.SuppKey))
	r.int(int64(l.LCnt))
	r.money(int64(l.Quantity) * 100) // a whole number of units
	r.money(int64(l.EPrice), int64(l.Discount), int64(l.Tax))
	r.str(string(l.RFlag), string(l.LStatus))
	r.date(l.SDate)
	r.date(l.CDate)
	r.date(l.RDate)
	r.str(l.ShipInstruct, l.ShipMode, l.Comment)
}

// rowAppender appends one row's values to a record builder's columns in
// order.
type rowAppender struct {
	b   *array.RecordBuilder
	col int
	err error
}

func (r *rowAppender) next() array.Builder {
	b := r.b.Field(r.col)
	r.col++
	return b
}

func (r *rowAppender) keys(vs ...int64) {
	for _, v := range vs {
		switch b := r.next().(type) {
		case *array.Int32Builder:
			b.Append(int32(v)) // keyType chose int32 where every key fits
		case *array.Int64Builder:
			b.Append(v)
		}
	}
}

func (r *rowAppender) int(v int64) { r.next().(*array.Int32Builder).Append(int32(v)) }

// money appends amounts given in cents as the float64 nearest to them: the
// value dbgen.FmtMoney prints, read back (a correctly rounded division and
// a correctly rounded parse of the same decimal agree).
func (r *rowAppender) money(cents ...int64) {
	for _, c := range cents {
		r.next().(*array.Float64Builder).Append(float64(c) / 100)
	}
}

func (r *rowAppender) str(vs ...string) {
	for _, v := range vs {
		r.next().(*array.StringBuilder).Append(v)
	}
}

func (r *rowAppender) date(s string) {
	d, err := kernel.ParseDate(s)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("tpch: generator date %q: %w", s, err)
	}
	r.next().(*array.Date32Builder).Append(arrow.Date32(d))
}

// ParseScale reads a scale factor: a whole number of 1 or more, or one of
// dbgen's small scales below 1 in thousandths (0.01, 0.1; the official
// answers are SF1's).
func ParseScale(s string) (float64, error) {
	sf, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("scale factor %q is not a number", s)
	}
	return sf, checkScale(sf)
}

// checkScale accepts what dbgen makes: whole scale factors of 1 or more,
// and below 1 whole thousandths from 0.001.
func checkScale(sf float64) error {
	switch {
	case sf >= 1 && sf == math.Trunc(sf) && sf <= 1e5:
		return nil
	case sf > 0 && sf < 1 && math.Abs(sf*1000-math.Round(sf*1000)) < 1e-9 && math.Round(sf*1000) >= 1:
		return nil
	}
	return fmt.Errorf("scale factor %g: want a whole number of 1 or more, or thousandths below 1 (0.01, 0.1)", sf)
}
