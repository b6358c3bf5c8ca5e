package tpch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe"
	"github.com/duskdata/dusk/internal/kernel"
)

// Tables are the eight TPC-H tables as frames, with the columns the
// queries expect: keys of one integer type (int32 where every file's are,
// else int64), money float64, dates date32.
type Tables struct {
	Lineitem, Orders, Partsupp, Part, Customer, Supplier, Nation, Region *dataframe.Frame
}

// frames lists the tables in the order of the package's table list.
func (t *Tables) frames() []**dataframe.Frame {
	return []**dataframe.Frame{&t.Lineitem, &t.Orders, &t.Partsupp, &t.Part, &t.Customer, &t.Supplier, &t.Nation, &t.Region}
}

// findTable returns the glob pattern of a table in dir: the file
// DIR/<table>.parquet, or the Parquet files of the folder DIR/<table>/.
func findTable(dir, name string) (string, error) {
	file := filepath.Join(dir, name+".parquet")
	if st, err := os.Stat(file); err == nil && !st.IsDir() {
		return file, nil
	}
	folder := filepath.Join(dir, name)
	if st, err := os.Stat(folder); err == nil && st.IsDir() {
		return filepath.Join(folder, "*.parquet"), nil
	}
	return "", fmt.Errorf("tpch: no %s table in %s: neither %s nor a folder %s", name, dir, file, folder+string(filepath.Separator))
}

// Open reads the eight tables from dir, in the layout Generate writes
// whoever wrote it: each a file or a folder of files, keys int32 or int64,
// money DOUBLE or DECIMAL. Columns of other types than the queries use are
// cast to them (keys stay int32 where every table has them so, else all
// are int64, since joined keys must be of one type); a column of a type no
// query could use is an error that names it.
func Open(dir string) (*Tables, error) {
	t := &Tables{}
	var errs []error
	read := make([]*dataframe.Frame, len(tables))
	keys := kinds[key].written
	for i := range tables {
		tab := &tables[i]
		pattern, err := findTable(dir, tab.name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fr := dataframe.ReadParquet(pattern)
		if err := fr.Err(); err != nil {
			errs = append(errs, fmt.Errorf("tpch: %s: %w", tab.name, err))
			continue
		}
		if err := tab.check(fr.Schema(), fmt.Sprintf("%s (%s)", tab.name, pattern)); err != nil {
			errs = append(errs, err)
			continue
		}
		read[i] = fr
		s := fr.Schema()
		for _, c := range tab.columns {
			if c.kind == key && s.Field(s.FieldIndices(c.name)[0]).Type.ID() != keys.ID() {
				keys = kernel.Int64
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return t, err
	}
	for i, f := range t.frames() {
		*f = tables[i].normalize(read[i], keys)
	}
	return t, nil
}

// normalize casts the columns whose types differ from those the queries
// expect: keys to the type keys, money to float64.
func (t *table) normalize(f *dataframe.Frame, keys arrow.DataType) *dataframe.Frame {
	s := f.Schema()
	for _, c := range t.columns {
		want := kinds[c.kind].written
		if c.kind == key {
			want = keys
		}
		got := s.Field(s.FieldIndices(c.name)[0]).Type
		if (c.kind == key || c.kind == money) && got.ID() != want.ID() {
			f = f.WithColumn(c.name, dataframe.Col(c.name).Cast(want))
		}
	}
	return f
}

// Persist reads every table into the workers' memory.
func (t *Tables) Persist(ctx context.Context) (*Tables, error) {
	out := &Tables{}
	dst := out.frames()
	for i, f := range t.frames() {
		p, err := (*f).Persist(ctx)
		if err != nil {
			out.Release()
			return nil, fmt.Errorf("tpch: persist %s: %w", tables[i].name, err)
		}
		*dst[i] = p
	}
	return out, nil
}

// Release drops persisted tables from the workers' memory.
func (t *Tables) Release() {
	for _, f := range t.frames() {
		if *f != nil {
			(*f).Release()
		}
	}
}
