package store

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/duskdata/dusk/graph"
	"github.com/duskdata/dusk/internal/codec"
	"github.com/duskdata/dusk/internal/registry"
)

// testRecord is a table of n rows like the ones dataframes hold: an id of
// few distinct values, a measure, and a low-cardinality string column.
func testRecord(n int, seed uint64) arrow.Record {
	r := rand.New(rand.NewPCG(seed, 1))
	ids := array.NewInt64Builder(memory.DefaultAllocator)
	vals := array.NewFloat64Builder(memory.DefaultAllocator)
	names := array.NewStringBuilder(memory.DefaultAllocator)
	for i := 0; i < n; i++ {
		ids.Append(r.Int64N(1000))
		vals.Append(float64(r.IntN(10000)) / 100)
		names.Append(fmt.Sprintf("id%03d", r.IntN(100)))
	}
	cols := []arrow.Array{ids.NewArray(), vals.NewArray(), names.NewArray()}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64},
		{Name: "name", Type: arrow.BinaryTypes.String},
	}, nil)
	rec := array.NewRecord(schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// randomRecord holds one column of random bytes, which do not compress.
func randomRecord(nbytes int) arrow.Record {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < nbytes/8; i++ {
		b.Append(int64(r.Uint64()))
	}
	col := b.NewArray()
	rec := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil),
		[]arrow.Array{col}, int64(col.Len()))
	col.Release()
	return rec
}

func mustGet(t *testing.T, s *Store, k graph.Key) any {
	t.Helper()
	v, ok, err := s.Get(k)
	if err != nil || !ok {
		t.Fatalf("Get(%s) = ok %v, err %v", k, ok, err)
	}
	return v
}

func sameRecord(t *testing.T, got any, want arrow.Record) {
	t.Helper()
	rec, ok := got.(arrow.Record)
	if !ok {
		t.Fatalf("got %T, want a record", got)
	}
	if !array.RecordEqual(rec, want) {
		t.Fatalf("record read back differs from the one stored")
	}
}

func spillFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.spill"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestStoreSpillsLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	recs := []arrow.Record{testRecord(10000, 1), testRecord(10000, 2), testRecord(10000, 3)}
	size := SizeOf(recs[0])
	s := New(Config{Dir: dir})
	for i, r := range recs {
		r.Retain() // the test keeps its own reference to compare against
		s.Put(graph.Key("r"+strconv.Itoa(i)), r)
		if err := s.SpillTo(2 * size); err != nil {
			t.Fatal(err)
		}
	}
	// Three records over a target of two: the oldest went to disk.
	if s.Managed() != 2*size || s.Spilled() == 0 || len(spillFiles(t, dir)) != 1 {
		t.Fatalf("managed %d (want %d), spilled %d, files %v", s.Managed(), 2*size, s.Spilled(), spillFiles(t, dir))
	}
	if s.Out() != size {
		t.Errorf("Out = %d, want the one record on disk, %d", s.Out(), size)
	}
	if s.Spilled() >= size*3/4 {
		t.Errorf("a compressible record of %d bytes took %d on disk", size, s.Spilled())
	}
	// Reading r0 brings it back and sends the least recently used (r1) out.
	v := mustGet(t, s, "r0")
	sameRecord(t, v, recs[0])
	registry.Release(v)
	if err := s.SpillTo(2 * size); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Spills != 2 || st.Unspills != 1 || st.SpillBytes < 2*size || st.UnspillBytes == 0 {
		t.Fatalf("stats %+v", st)
	}
	v = mustGet(t, s, "r2") // in memory: no disk involved
	registry.Release(v)
	if s.Stats().Unspills != 1 {
		t.Fatal("a value in memory was read from disk")
	}
	v = mustGet(t, s, "r1")
	sameRecord(t, v, recs[1])
	registry.Release(v)
	// Deleting a spilled value removes its file.
	s.Delete("r0")
	s.Delete("r1")
	s.Delete("r2")
	if n := len(spillFiles(t, dir)); n != 0 || s.Managed() != 0 || s.Spilled() != 0 || s.Out() != 0 || s.Len() != 0 {
		t.Fatalf("after deleting all: %d files, managed %d, spilled %d, %d values", n, s.Managed(), s.Spilled(), s.Len())
	}
	for _, r := range recs {
		r.Release()
	}
}

// A value read back keeps its disk copy: leaving memory again costs no write.
func TestStoreRespillsWithoutWriting(t *testing.T) {
	dir := t.TempDir()
	s := New(Config{Dir: dir})
	rec := testRecord(10000, 4)
	rec.Retain()
	defer rec.Release()
	s.Put("a", rec)
	for round := 0; round < 3; round++ {
		if err := s.SpillTo(0); err != nil {
			t.Fatal(err)
		}
		if s.Managed() != 0 {
			t.Fatalf("round %d: managed %d after spilling all", round, s.Managed())
		}
		v := mustGet(t, s, "a")
		sameRecord(t, v, rec)
		registry.Release(v)
	}
	if st := s.Stats(); st.Spills != 1 || st.Unspills != 3 {
		t.Fatalf("stats %+v: want one write and three reads", st)
	}
	if n := len(spillFiles(t, dir)); n != 1 || s.Spilled() == 0 {
		t.Fatalf("%d files, %d bytes on disk; want the one copy", n, s.Spilled())
	}
	s.Delete("a")
	if n := len(spillFiles(t, dir)); n != 0 || s.Spilled() != 0 || s.Managed() != 0 {
		t.Fatalf("after Delete: %d files, spilled %d, managed %d", n, s.Spilled(), s.Managed())
	}
}

func TestStoreStoresIncompressibleDataAsIs(t *testing.T) {
	dir := t.TempDir()
	s := New(Config{Dir: dir})
	rec := randomRecord(4 << 20)
	rec.Retain()
	defer rec.Release()
	s.Put("x", rec)
	if err := s.SpillTo(0); err != nil {
		t.Fatal(err)
	}
	size := 8 * rec.NumRows()
	if got := s.Spilled(); got < size || got > size+size/50 {
		t.Fatalf("random data of %d bytes took %d on disk: it should be stored as it is", size, got)
	}
	v := mustGet(t, s, "x")
	sameRecord(t, v, rec)
	registry.Release(v)
}

func TestStoreSpillsGoValues(t *testing.T) {
	s := New(Config{Dir: t.TempDir()})
	s.Put("n", int64(42))
	if err := s.SpillTo(0); err != nil {
		t.Fatal(err)
	}
	if s.Managed() != 0 {
		t.Fatalf("int64 not spilled: managed %d", s.Managed())
	}
	if v := mustGet(t, s, "n"); v != int64(42) {
		t.Fatalf("read back %v", v)
	}
	// A value of a type with no codec cannot go to disk: it stays, and
	// that is no error.
	s.Put("m", map[string]int{"a": 1})
	if err := s.SpillTo(0); err != nil || s.SpillError() != nil {
		t.Fatalf("SpillTo = %v, SpillError = %v", err, s.SpillError())
	}
	if s.Managed() == 0 {
		t.Fatal("a value with no codec left memory")
	}
	if v := mustGet(t, s, "m"); v.(map[string]int)["a"] != 1 {
		t.Fatalf("read back %v", v)
	}
}

func TestStoreDropsCorruptSpill(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(path string) error
	}{
		{"flipped byte", func(p string) error {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b[len(b)/2] ^= 0x40
			return os.WriteFile(p, b, 0o600)
		}},
		{"truncated", func(p string) error {
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			return os.Truncate(p, fi.Size()-20)
		}},
		{"missing", os.Remove},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var lost []graph.Key
			s := New(Config{Dir: dir, OnLost: func(k graph.Key) { lost = append(lost, k) }})
			s.Put("a", testRecord(50000, 3))
			if err := s.SpillTo(0); err != nil {
				t.Fatal(err)
			}
			files := spillFiles(t, dir)
			if len(files) != 1 {
				t.Fatalf("files %v", files)
			}
			if err := tc.damage(files[0]); err != nil {
				t.Fatal(err)
			}
			_, ok, err := s.Get("a")
			if ok || !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Get of a damaged spill = ok %v, err %v; want ErrCorrupt", ok, err)
			}
			if len(lost) != 1 || lost[0] != "a" {
				t.Fatalf("OnLost got %v", lost)
			}
			if s.Len() != 0 || s.Spilled() != 0 || len(spillFiles(t, dir)) != 0 {
				t.Fatalf("the lost value is still counted: %d values, %d spilled", s.Len(), s.Spilled())
			}
		})
	}
}

func TestStoreKeepsValuesWhenDiskFails(t *testing.T) {
	// A spill directory that is a file cannot be written, whoever runs the test.
	dir := filepath.Join(t.TempDir(), "spill")
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := New(Config{Dir: dir})
	rec := testRecord(10000, 5)
	rec.Retain()
	defer rec.Release()
	s.Put("a", rec)
	managed := s.Managed()
	if err := s.SpillTo(0); err == nil {
		t.Fatal("spilling into a file did not fail")
	}
	if s.SpillError() == nil || s.Managed() != managed || s.Spilled() != 0 {
		t.Fatalf("after a failed spill: error %v, managed %d (was %d), spilled %d",
			s.SpillError(), s.Managed(), managed, s.Spilled())
	}
	sameRecord(t, mustGet(t, s, "a"), rec)

	// Once the disk is back, spilling works and the error clears.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.SpillTo(0); err != nil || s.SpillError() != nil || s.Managed() != 0 {
		t.Fatalf("after the disk came back: %v, error %v, managed %d", err, s.SpillError(), s.Managed())
	}
	v := mustGet(t, s, "a")
	sameRecord(t, v, rec)
	registry.Release(v)
}

func TestStoreConcurrentUse(t *testing.T) {
	dir := t.TempDir()
	recs := make([]arrow.Record, 8)
	for i := range recs {
		recs[i] = testRecord(2000, uint64(i))
	}
	s := New(Config{Dir: dir})
	target := 3 * SizeOf(recs[0])
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 50; round++ {
				i := (g*3 + round) % len(recs)
				k := graph.Key("k" + strconv.Itoa(i))
				recs[i].Retain()
				s.Put(k, recs[i])
				if err := s.SpillTo(target); err != nil {
					t.Error(err)
					return
				}
				v, ok, err := s.Get(k)
				if err != nil {
					t.Error(err)
					return
				}
				if ok && !array.RecordEqual(v.(arrow.Record), recs[i]) {
					t.Errorf("%s read back wrong", k)
				}
				registry.Release(v)
				if round%7 == 0 {
					s.Delete(k)
				}
			}
		}()
	}
	wg.Wait()
	for i := range recs {
		s.Delete(graph.Key("k" + strconv.Itoa(i)))
		recs[i].Release()
	}
	if n := len(spillFiles(t, dir)); n != 0 || s.Managed() != 0 || s.Spilled() != 0 {
		t.Fatalf("left %d files, managed %d, spilled %d", n, s.Managed(), s.Spilled())
	}
}

// BenchmarkSpill measures writing a 50 MB table to disk and reading it
// back, on one core: MB/s of the table in memory.
func BenchmarkSpill(b *testing.B) {
	rec := testRecord(2<<20, 9)
	defer rec.Release()
	size := SizeOf(rec)
	dir := b.TempDir()
	for _, comp := range []struct {
		name string
		c    Compression
	}{{"s2", S2}, {"zstd", Zstd}, {"none", None}} {
		b.Run("write/"+comp.name, func(b *testing.B) {
			b.SetBytes(size)
			var disk int64
			for i := 0; i < b.N; i++ {
				p := filepath.Join(dir, "w.spill")
				n, err := writeSpill(p, rec, comp.c)
				if err != nil {
					b.Fatal(err)
				}
				disk = n
				os.Remove(p)
			}
			b.ReportMetric(float64(size)/float64(disk), "ratio")
		})
		b.Run("read/"+comp.name, func(b *testing.B) {
			p := filepath.Join(dir, "r.spill")
			os.Remove(p)
			if _, err := writeSpill(p, rec, comp.c); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(size)
			for i := 0; i < b.N; i++ {
				v, _, err := readSpill(p, nil)
				if err != nil {
					b.Fatal(err)
				}
				registry.Release(v)
			}
		})
	}
}

// BenchmarkStoreAccounting measures what memory accounting adds to a task:
// sizing its result, keeping it in the store's books and least recently used
// list, reading it as an input, and dropping it.
func BenchmarkStoreAccounting(b *testing.B) {
	rec := testRecord(1000, 3)
	defer rec.Release()
	for _, tc := range []struct {
		name string
		v    func() any
	}{
		{"record", func() any { rec.Retain(); return rec }},
		{"int64", func() any { return int64(7) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := New(Config{Dir: b.TempDir()})
			keys := make([]graph.Key, 1024)
			for i := range keys {
				keys[i] = graph.Key("task-" + strconv.Itoa(i))
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				k := keys[i%len(keys)]
				s.Put(k, tc.v())
				v, _, _ := s.Get(k)
				registry.Release(v)
				s.Delete(k)
			}
		})
	}
}

type jsonValue struct{ X float64 }

func init() {
	codec.Register(reflect.TypeFor[jsonValue](), codec.JSON[jsonValue]())
	codec.Register(reflect.TypeFor[[]int](), codec.JSON[[]int]())
}

// A value its codec cannot encode stays in memory without holding back the
// others or passing for a disk failure.
func TestStoreSkipsUnencodableValue(t *testing.T) {
	s := New(Config{Dir: t.TempDir()})
	s.Put("nan", jsonValue{X: math.NaN()}) // JSON has no NaN
	rec := testRecord(1000, 1)
	s.Put("rec", rec)
	for i := 0; i < 2; i++ {
		if err := s.SpillTo(0); err != nil || s.SpillError() != nil {
			t.Fatalf("SpillTo = %v, SpillError = %v", err, s.SpillError())
		}
	}
	if st := s.Stats(); st.Spills != 1 || s.Managed() != SizeOf(jsonValue{}) {
		t.Fatalf("stats %+v, managed %d: want the record spilled and the NaN kept", st, s.Managed())
	}
}

// JSON values of every length read back, whatever the decoder leaves unread.
func TestStoreJSONValuesReadBack(t *testing.T) {
	s := New(Config{Dir: t.TempDir()})
	for n := 0; n < 700; n += 3 {
		v := make([]int, n)
		for i := range v {
			v[i] = i % 10
		}
		k := graph.Key(fmt.Sprint("v", n))
		s.Put(k, v)
		if err := s.SpillTo(0); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.Get(k)
		if err != nil || !ok || len(got.([]int)) != n {
			t.Fatalf("length %d: ok %v, err %v", n, ok, err)
		}
		s.Delete(k)
	}
}

// TestStoreReadsSpilledColumns: a record spilled by column reads back two
// of its nine columns by reading those two from disk (bytes counted: the
// file's footer and the two columns' blocks, nothing else), equal to the
// original's, and stays on disk; read whole it equals the original; a
// column it lacks gets the whole record.
func TestStoreReadsSpilledColumns(t *testing.T) {
	const n = 100_000
	r := rand.New(rand.NewPCG(3, 1))
	var fields []arrow.Field
	var cols []arrow.Array
	for c := 0; c < 9; c++ {
		name := fmt.Sprintf("c%d", c)
		switch c % 3 {
		case 0:
			b := array.NewStringBuilder(memory.DefaultAllocator)
			for i := 0; i < n; i++ {
				b.Append(fmt.Sprintf("id%06d", r.IntN(1_000_000)))
			}
			fields, cols = append(fields, arrow.Field{Name: name, Type: arrow.BinaryTypes.String}), append(cols, b.NewArray())
		case 1:
			b := array.NewInt64Builder(memory.DefaultAllocator)
			for i := 0; i < n; i++ {
				b.Append(r.Int64N(1 << 40))
			}
			fields, cols = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64}), append(cols, b.NewArray())
		default:
			b := array.NewFloat64Builder(memory.DefaultAllocator)
			for i := 0; i < n; i++ {
				if i%10 == 0 {
					b.AppendNull()
				} else {
					b.Append(r.Float64())
				}
			}
			fields, cols = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64, Nullable: true}), append(cols, b.NewArray())
		}
	}
	md := arrow.NewMetadata([]string{"origin"}, []string{"test"})
	rec := array.NewRecord(arrow.NewSchema(fields, &md), cols, n)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()

	dir := t.TempDir()
	s := New(Config{Dir: dir})
	rec.Retain()
	s.Put("a", rec)
	if err := s.SpillTo(0); err != nil {
		t.Fatal(err)
	}
	files := spillFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	_, sections, err := readFooter(f, st.Size())
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(sections) != 9 {
		t.Fatalf("%d column sections, want 9", len(sections))
	}
	footer := st.Size() - (sections[8].off + sections[8].size) // footer and trailer
	out := s.Out()
	// A read-ahead is a hint: it counts, reads nothing through the store,
	// and changes nothing; of a key not on disk it is nothing.
	s.Prefetch("a", []string{"c7", "c0"})
	s.Prefetch("absent", nil)
	if st := s.Stats(); st.Prefetches != 1 || st.ReadBytes != 0 || s.Out() != out {
		t.Fatalf("after read-ahead: %+v, out %d; want 1 prefetch, nothing read, out %d", st, s.Out(), out)
	}

	v, ok, err := s.GetColumns("a", []string{"c7", "c0"})
	if err != nil || !ok {
		t.Fatalf("GetColumns: ok %v, err %v", ok, err)
	}
	got := v.(arrow.Record)
	want := array.NewRecord(arrow.NewSchema([]arrow.Field{fields[7], fields[0]}, &md), []arrow.Array{rec.Column(7), rec.Column(0)}, n)
	if !array.RecordEqual(got, want) || !got.Schema().Equal(want.Schema()) || !got.Schema().Metadata().Equal(md) {
		t.Errorf("columns c7, c0 read back as %v, want %v", got.Schema(), want.Schema())
	}
	got.Release()
	want.Release()
	read := int64(len(columnsMagic)) + footer + sections[7].size + sections[0].size
	if st := s.Stats(); st.ReadBytes != read || st.Projections != 1 || st.Unspills != 0 {
		t.Errorf("stats after reading 2 of 9 columns: %+v; want %d bytes read of the file's %d, 1 projection, no unspill",
			st, read, s.Spilled())
	}
	if s.Managed() != 0 || s.Out() != out {
		t.Errorf("after a projected read: managed %d, out %d; want 0 and %d (still on disk)", s.Managed(), s.Out(), out)
	}

	v, ok, err = s.GetColumns("a", []string{"c1", "missing"})
	if err != nil || !ok || !array.RecordEqual(v.(arrow.Record), rec) {
		t.Errorf("GetColumns naming a missing column: ok %v, err %v; want the whole record", ok, err)
	}
	registry.Release(v)
	v, ok, err = s.Get("a")
	if err != nil || !ok || !array.RecordEqual(v.(arrow.Record), rec) || !v.(arrow.Record).Schema().Equal(rec.Schema()) {
		t.Fatalf("Get after projections: ok %v, err %v; not the record spilled", ok, err)
	}
	registry.Release(v)
	if s.Out() != 0 || s.Stats().Unspills != 1 {
		t.Errorf("Get did not bring the record back: out %d, %+v", s.Out(), s.Stats())
	}
	s.Prefetch("a", nil) // in memory: nothing to read ahead
	if n := s.Stats().Prefetches; n != 1 {
		t.Errorf("a record in memory counted a read-ahead: %d", n)
	}
	v, _, _ = s.GetColumns("a", []string{"c1"}) // in memory: the whole record
	if v.(arrow.Record).NumCols() != 9 {
		t.Errorf("GetColumns of a record in memory has %d columns, want its 9", v.(arrow.Record).NumCols())
	}
	registry.Release(v)
	s.Delete("a")
}

// groupbyRecord is a partition of db-benchmark's groupby table as a CSV
// load gives it: id1 and id2 dictionary-encoded strings, id3 plain ones,
// id4..id6, v1, v2 int64, v3 float64.
func groupbyRecord(n int) arrow.Record {
	r := rand.New(rand.NewPCG(5, 6))
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	strs := [3]array.Builder{
		array.NewDictionaryBuilder(memory.DefaultAllocator, dictType),
		array.NewDictionaryBuilder(memory.DefaultAllocator, dictType),
		array.NewStringBuilder(memory.DefaultAllocator),
	}
	appendString := func(b array.Builder, s string) {
		switch b := b.(type) {
		case *array.BinaryDictionaryBuilder:
			if err := b.AppendString(s); err != nil {
				panic(err)
			}
		case *array.StringBuilder:
			b.Append(s)
		}
	}
	ints := [5]*array.Int64Builder{}
	for i := range ints {
		ints[i] = array.NewInt64Builder(memory.DefaultAllocator)
	}
	v3 := array.NewFloat64Builder(memory.DefaultAllocator)
	for range n {
		appendString(strs[0], fmt.Sprintf("id%03d", r.IntN(100)+1))
		appendString(strs[1], fmt.Sprintf("id%03d", r.IntN(100)+1))
		appendString(strs[2], fmt.Sprintf("id%010d", r.IntN(n/100)+1))
		for i, k := range []int{100, 100, n / 100, 5, 15} {
			ints[i].Append(int64(r.IntN(k) + 1))
		}
		v3.Append(float64(r.IntN(100_000_000)) / 1e6)
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for i, b := range strs {
		col := b.NewArray()
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("id%d", i+1), Type: col.DataType(), Nullable: true})
		cols = append(cols, col)
	}
	for i, b := range ints {
		name := [...]string{"id4", "id5", "id6", "v1", "v2"}[i]
		fields = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64, Nullable: true})
		cols = append(cols, b.NewArray())
	}
	fields = append(fields, arrow.Field{Name: "v3", Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	cols = append(cols, v3.NewArray())
	rec := array.NewRecord(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// BenchmarkSpillGroupBy spills a 1.25M-row partition of the groupby table
// and reads it back whole and as db-benchmark's q1 reads it (id1, v1): MB/s
// of what is read back, in memory.
func BenchmarkSpillGroupBy(b *testing.B) {
	rec := groupbyRecord(1_250_000)
	defer rec.Release()
	p := filepath.Join(b.TempDir(), "g.spill")
	b.Run("write", func(b *testing.B) {
		b.SetBytes(SizeOf(rec))
		for i := 0; i < b.N; i++ {
			os.Remove(p)
			n, err := writeSpill(p, rec, S2)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(SizeOf(rec))/float64(n), "ratio")
		}
	})
	os.Remove(p)
	if _, err := writeSpill(p, rec, S2); err != nil {
		b.Fatal(err)
	}
	for _, cols := range [][]string{nil, {"id1", "v1"}} {
		name := "read/all"
		if cols != nil {
			name = "read/id1,v1"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				v, _, err := readSpill(p, cols)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(SizeOf(v))
				registry.Release(v)
			}
		})
	}
}
