package avro_test

import (
	"bytes"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"

	"github.com/duskdata/dusk/internal/kernel"
	davro "github.com/duskdata/dusk/io/avro"
	"github.com/duskdata/dusk/io/internal/iotest"
)

// writeFile writes recs to a new file in a test directory.
func writeFile(t *testing.T, recs []arrow.Record, opts davro.WriteOptions) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.avro")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := davro.Write(f, recs, opts); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string, cols []string) (arrow.Record, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return davro.Read(f, path, cols)
}

func TestWriteReadRoundTrip(t *testing.T) {
	full := fiveTypes(300)
	defer full.Release()
	sliced := full.NewSlice(13, 177) // non-zero offsets in every column
	defer sliced.Release()
	empty := full.NewSlice(5, 5)
	defer empty.Release()
	recs := []arrow.Record{full, empty, sliced}
	var want [][]any
	for _, r := range recs {
		want = append(want, iotest.RowsOf(r)...)
	}
	for _, codec := range []string{"", "zstd", "deflate", "snappy", "none"} {
		for _, blockSize := range []int{0, 256} { // one block, or many
			t.Run(codec+"/"+map[int]string{0: "default", 256: "small"}[blockSize], func(t *testing.T) {
				path := writeFile(t, recs, davro.WriteOptions{Compression: codec, BlockSize: blockSize})
				rec, err := readFile(t, path, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer rec.Release()
				if got, want := iotest.TypesOf(rec), []string{"int64", "float64", "bool", "utf8", "dict"}; !reflect.DeepEqual(got, want) {
					t.Errorf("types = %v, want %v", got, want)
				}
				if got := iotest.RowsOf(rec); !reflect.DeepEqual(got, want) {
					t.Errorf("rows differ after a round trip:\n got %v\nwant %v", got, want)
				}
				for _, f := range rec.Schema().Fields() {
					if !f.Nullable {
						t.Errorf("field %s is not nullable", f.Name)
					}
				}
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				schema, err := davro.Inspect(f, path)
				if err != nil {
					t.Fatal(err)
				}
				if !schema.Equal(rec.Schema()) {
					t.Errorf("Inspect = %s, Read made %s", schema, rec.Schema())
				}
			})
		}
	}
}

// hamba's own decoder reads what Write writes.
func TestWriteReadByHamba(t *testing.T) {
	rec := fiveTypes(50)
	defer rec.Release()
	path := writeFile(t, []arrow.Record{rec}, davro.WriteOptions{Compression: "deflate", BlockSize: 300})
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec, err := ocf.NewDecoder(f)
	if err != nil {
		t.Fatal(err)
	}
	want := iotest.RowsOf(rec)
	names := []string{"i", "f", "b", "s", "d"}
	n := 0
	for ; dec.HasNext(); n++ {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		for c, name := range names {
			if got := m[name]; !reflect.DeepEqual(got, want[n][c]) {
				t.Fatalf("row %d %s = %#v, want %#v", n, name, got, want[n][c])
			}
		}
	}
	if err := dec.Error(); err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Errorf("hamba read %d rows, want %d", n, len(want))
	}
	if got := string(dec.Metadata()["avro.codec"]); got != "deflate" {
		t.Errorf("codec %q", got)
	}
}

func TestReadProjection(t *testing.T) {
	rec := fiveTypes(20)
	defer rec.Release()
	path := writeFile(t, []arrow.Record{rec}, davro.WriteOptions{})
	got, err := readFile(t, path, []string{"d", "i"})
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if names := got.Schema().Fields(); len(names) != 2 || names[0].Name != "i" || names[1].Name != "d" {
		t.Fatalf("projection gave %s", got.Schema())
	}
	all := iotest.RowsOf(rec)
	for i, row := range iotest.RowsOf(got) {
		if !reflect.DeepEqual(row, []any{all[i][0], all[i][4]}) {
			t.Fatalf("row %d = %v, want %v", i, row, []any{all[i][0], all[i][4]})
		}
	}
	none, err := readFile(t, path, []string{})
	if err != nil {
		t.Fatal(err)
	}
	defer none.Release()
	if none.NumCols() != 0 || none.NumRows() != 20 {
		t.Errorf("no columns: %d columns, %d rows", none.NumCols(), none.NumRows())
	}
	_, err = readFile(t, path, []string{"x"})
	if want := `read ` + path + `: column "x" is not in the file; its columns are ["i" "f" "b" "s" "d"]`; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// A file written by hamba/avro from Go structs, with types Dusk widens.
const structSchema = `{"type":"record","name":"Event","namespace":"test","fields":[
	{"name":"id","type":"int"},
	{"name":"score","type":"float"},
	{"name":"color","type":{"type":"enum","name":"Color","symbols":["RED","GREEN","BLUE"]}},
	{"name":"note","type":["null","string"]},
	{"name":"big","type":["long","null"]},
	{"name":"ok","type":"boolean"},
	{"name":"raw","type":"bytes"},
	{"name":"day","type":{"type":"int","logicalType":"date"}},
	{"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
	{"name":"again","type":["null","Color"]},
	{"name":"tags","type":{"type":"array","items":"string"}},
	{"name":"attrs","type":{"type":"map","values":"long"}},
	{"name":"inner","type":{"type":"record","name":"Inner","fields":[{"name":"x","type":"double"}]}},
	{"name":"fx","type":{"type":"fixed","name":"F4","size":4}},
	{"name":"multi","type":["null","long","string"]}
]}`

type inner struct {
	X float64 `avro:"x"`
}

type event struct {
	ID    int32            `avro:"id"`
	Score float32          `avro:"score"`
	Color string           `avro:"color"`
	Note  *string          `avro:"note"`
	Big   *int64           `avro:"big"`
	OK    bool             `avro:"ok"`
	Raw   []byte           `avro:"raw"`
	Day   time.Time        `avro:"day"`
	At    time.Time        `avro:"at"`
	Again *string          `avro:"again"`
	Tags  []string         `avro:"tags"`
	Attrs map[string]int64 `avro:"attrs"`
	Inner inner            `avro:"inner"`
	Fx    [4]byte          `avro:"fx"`
	Multi any              `avro:"multi"`
}

func TestReadHambaStructs(t *testing.T) {
	// Arrays and maps come in blocks with their sizes (skipped whole) or
	// without (skipped item by item).
	for _, sizes := range []bool{true, false} {
		t.Run(map[bool]string{true: "block sizes", false: "no block sizes"}[sizes], func(t *testing.T) {
			testReadHambaStructs(t, avro.Config{DisableBlockSizeHeader: !sizes}.Freeze())
		})
	}
}

func testReadHambaStructs(t *testing.T, cfg avro.API) {
	path := filepath.Join(t.TempDir(), "events.avro")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := ocf.NewEncoder(structSchema, f, ocf.WithBlockLength(7), ocf.WithCodec(ocf.Snappy), ocf.WithEncodingConfig(cfg))
	if err != nil {
		t.Fatal(err)
	}
	note, big, green := "hello", int64(-1)<<40, "GREEN"
	var want [][]any
	for i := 0; i < 20; i++ {
		e := event{
			ID: int32(i - 10), Score: float32(i) / 4, Color: []string{"RED", "GREEN", "BLUE"}[i%3], OK: i%2 == 0,
			Raw: []byte("raw" + strings.Repeat("!", i)), Day: time.Date(2024, 1, 1+i, 0, 0, 0, 0, time.UTC),
			At: time.UnixMilli(1_700_000_000_000 + int64(i)).UTC(), Tags: []string{"a", "b"}[:i%3%2+i%2],
			Attrs: map[string]int64{"k": int64(i)}, Inner: inner{X: float64(i)}, Fx: [4]byte{1, 2, 3, byte(i)},
		}
		row := []any{int64(i - 10), float64(i) / 4, e.Color, nil, nil, e.OK, string(e.Raw), int64(19723 + i), int64(1_700_000_000_000 + i), nil}
		if i%3 == 0 {
			e.Note, e.Big, e.Again = &note, &big, &green
			row[3], row[4], row[9] = note, big, green
		}
		if i%4 == 0 {
			e.Multi = "text"
		} else if i%4 == 1 {
			e.Multi = int64(i)
		}
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
		want = append(want, row)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	cols := []string{"id", "score", "color", "note", "big", "ok", "raw", "day", "at", "again"}
	rec, err := readFile(t, path, cols)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if got, want := iotest.TypesOf(rec), []string{"int64", "float64", "dict", "utf8", "int64", "bool", "utf8", "date32", "timestamp[ms, tz=UTC]", "dict"}; !reflect.DeepEqual(got, want) {
		t.Errorf("types = %v, want %v", got, want)
	}
	if got := iotest.RowsOf(rec); !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n got %v\nwant %v", got, want)
	}

	// Asked for, or inspected, the fields Dusk cannot hold are errors.
	for _, tt := range []struct {
		col, want string
	}{
		{"tags", "field tags: Avro type array is not supported"},
		{"attrs", "field attrs: Avro type map is not supported"},
		{"inner", "field inner: Avro type record test.Inner is not supported"},
		{"fx", "field fx: Avro type fixed test.F4 is not supported"},
		{"multi", `field multi: Avro type union ["null","long","string"] is not supported`},
	} {
		_, err := readFile(t, path, []string{"id", tt.col})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("Read %s: err = %v, want %q and the path", tt.col, err, tt.want)
		}
	}
	_, err = readFile(t, path, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "read "+path+": field tags: Avro type array is not supported") {
		t.Errorf("Read all: err = %v", err)
	}
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := davro.Inspect(in, path); err == nil || !strings.Contains(err.Error(), "field tags") {
		t.Errorf("Inspect: err = %v", err)
	}
}

func TestArrowSchema(t *testing.T) {
	tests := []struct {
		name, fields string
		want         []arrow.Field // nil: an error
		err          string
	}{
		{
			name:   "primitives",
			fields: `{"name":"a","type":"long"},{"name":"b","type":"float"},{"name":"c","type":"boolean"},{"name":"d","type":"bytes"},{"name":"e","type":{"type":"string","logicalType":"uuid"}}`,
			want: []arrow.Field{
				{Name: "a", Type: kernel.Int64, Nullable: true}, {Name: "b", Type: kernel.Float64, Nullable: true},
				{Name: "c", Type: kernel.Bool, Nullable: true}, {Name: "d", Type: kernel.String, Nullable: true},
				{Name: "e", Type: kernel.String, Nullable: true},
			},
		},
		{
			name:   "nullable either way, single-branch union, dictionary property",
			fields: `{"name":"a","type":["null","double"]},{"name":"b","type":["int","null"]},{"name":"c","type":["string"]},{"name":"d","type":"string","dusk.dictionary":true}`,
			want: []arrow.Field{
				{Name: "a", Type: kernel.Float64, Nullable: true}, {Name: "b", Type: kernel.Int64, Nullable: true},
				{Name: "c", Type: kernel.String, Nullable: true}, {Name: "d", Type: kernel.Dict, Nullable: true},
			},
		},
		{
			name:   "dates and timestamps as such, times of day as numbers",
			fields: `{"name":"a","type":{"type":"int","logicalType":"date"}},{"name":"b","type":{"type":"long","logicalType":"timestamp-micros"}},{"name":"c","type":{"type":"int","logicalType":"time-millis"}},{"name":"d","type":{"type":"long","logicalType":"local-timestamp-millis"}}`,
			want: []arrow.Field{
				{Name: "a", Type: arrow.FixedWidthTypes.Date32, Nullable: true}, {Name: "b", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
				{Name: "c", Type: kernel.Int64, Nullable: true}, {Name: "d", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
			},
		},
		{name: "array", fields: `{"name":"ok","type":"long"},{"name":"xs","type":{"type":"array","items":"long"}}`, err: "avro: field xs: Avro type array is not supported"},
		{name: "decimal", fields: `{"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}}`,
			want: []arrow.Field{{Name: "price", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true}}},
		{name: "fixed decimal", fields: `{"name":"price","type":{"type":"fixed","name":"F8","size":8,"logicalType":"decimal","precision":9,"scale":2}}`, err: "avro: field price: Avro type fixed F8"},
		{name: "null", fields: `{"name":"n","type":"null"}`, want: []arrow.Field{{Name: "n", Type: arrow.Null, Nullable: true}}},
		{name: "kept as long", fields: `{"name":"d","type":"long","dusk.type":"duration[ms]"},{"name":"u","type":"long","dusk.type":"uint64"},{"name":"x","type":"long","dusk.type":"int8"}`,
			want: []arrow.Field{{Name: "d", Type: arrow.FixedWidthTypes.Duration_ms, Nullable: true}, {Name: "u", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
				{Name: "x", Type: kernel.Int64, Nullable: true}}}, // a type Write does not keep so is the long

		{name: "union of two nulls-free", fields: `{"name":"u","type":["int","string"]}`, err: `avro: field u: Avro type union ["int","string"] is not supported`},
		{name: "union with a record", fields: `{"name":"u","type":["null",{"type":"record","name":"R","fields":[]}]}`, err: "avro: field u: Avro type record R is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := avro.Parse(`{"type":"record","name":"T","fields":[` + tt.fields + `]}`)
			if err != nil {
				t.Fatal(err)
			}
			got, err := davro.ArrowSchema(s)
			if tt.want == nil {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Errorf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(arrow.NewSchema(tt.want, nil)) {
				t.Errorf("ArrowSchema = %s, want %v", got, tt.want)
			}
		})
	}
	if _, err := davro.ArrowSchema(avro.MustParse(`"long"`)); err == nil || err.Error() != "avro: the schema is long, not a record" {
		t.Errorf("not a record: err = %v", err)
	}
}

func TestAvroSchema(t *testing.T) {
	rec := fiveTypes(1)
	defer rec.Release()
	s, err := davro.AvroSchema("Row", rec.Schema())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"Row","type":"record","fields":[{"name":"i","type":["null","long"]},{"name":"f","type":["null","double"]},{"name":"b","type":["null","boolean"]},{"name":"s","type":["null","string"]},{"name":"d","type":["null","string"]}]}`
	if s.String() != want {
		t.Errorf("AvroSchema = %s\nwant %s", s, want)
	}
	back, err := davro.ArrowSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equal(rec.Schema()) {
		t.Errorf("ArrowSchema(AvroSchema(s)) = %s, want %s", back, rec.Schema())
	}

	for _, tt := range []struct {
		name   string
		fields []arrow.Field
		want   string
	}{
		{"bad column name", []arrow.Field{{Name: "first name", Type: kernel.Int64}}, `avro: column "first name" is not a valid Avro field name`},
		{"leading digit", []arrow.Field{{Name: "1x", Type: kernel.Int64}}, `avro: column "1x" is not a valid Avro field name`},
		{"unsupported type", []arrow.Field{{Name: "x", Type: arrow.FixedWidthTypes.MonthInterval}}, "avro: column x: type month_interval cannot be written"},
		{"twice", []arrow.Field{{Name: "x", Type: kernel.Int64}, {Name: "x", Type: kernel.Bool}}, "avro: two columns named x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := davro.AvroSchema("Row", arrow.NewSchema(tt.fields, nil))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := davro.AvroSchema("bad name", rec.Schema()); err == nil || !strings.HasPrefix(err.Error(), `avro: record name "bad name"`) {
		t.Errorf("bad record name: err = %v", err)
	}
}

func TestWriteErrors(t *testing.T) {
	rec := fiveTypes(3)
	defer rec.Release()
	bld := array.NewMonthIntervalBuilder(memory.DefaultAllocator)
	bld.Append(1)
	months := bld.NewArray()
	defer months.Release()
	odd := array.NewRecord(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.FixedWidthTypes.MonthInterval}}, nil), []arrow.Array{months}, 1)
	defer odd.Release()
	for _, tt := range []struct {
		name string
		recs []arrow.Record
		opts davro.WriteOptions
		want string
	}{
		{"no records", nil, davro.WriteOptions{}, "write avro: no records and no WriteOptions.Schema"},
		{"schemas differ", []arrow.Record{rec, odd}, davro.WriteOptions{}, "write avro: record 1: 1 columns, want 5"},
		{"compression", []arrow.Record{rec}, davro.WriteOptions{Compression: "lz4"}, `write avro: unknown compression "lz4"`},
		{"type", []arrow.Record{odd}, davro.WriteOptions{}, "write avro: column x: type month_interval cannot be written"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := davro.Write(&bytes.Buffer{}, tt.recs, tt.opts)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	// No records but a schema: a file with the columns and no rows.
	var b bytes.Buffer
	if err := davro.Write(&b, nil, davro.WriteOptions{Schema: rec.Schema()}); err != nil {
		t.Fatal(err)
	}
	got, err := davro.Read(&b, "empty.avro", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if got.NumRows() != 0 || !got.Schema().Equal(rec.Schema()) {
		t.Errorf("empty file read as %d rows of %s", got.NumRows(), got.Schema())
	}
}

// TestReadDecimals reads bytes decimals, as hamba/avro encodes *big.Rat,
// negative ones and nulls among them.
func TestReadDecimals(t *testing.T) {
	schema := `{"type":"record","name":"r","fields":[{"name":"p","type":["null",{"type":"bytes","logicalType":"decimal","precision":20,"scale":3}]}]}`
	path := filepath.Join(t.TempDir(), "d.avro")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := ocf.NewEncoder(schema, f)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"12.345", "-0.001", "", "123456789012345.678"}
	for _, w := range want {
		rec := map[string]any{"p": nil}
		if w != "" {
			r, _ := new(big.Rat).SetString(w)
			rec["p"] = r
		}
		if err := enc.Encode(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rec, err := readFile(t, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	col := rec.Column(0).(*array.Decimal128)
	if got := col.DataType().String(); got != "decimal(20, 3)" {
		t.Fatalf("type %s, want decimal(20, 3)", got)
	}
	for i, w := range want {
		got := ""
		if col.IsValid(i) {
			got = col.Value(i).ToString(3)
		}
		if got != w {
			t.Errorf("row %d: %q, want %q", i, got, w)
		}
	}
}
