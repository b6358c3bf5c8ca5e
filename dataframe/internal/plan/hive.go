package plan

// Hive-style directories (year=2024/month=01/) as columns of a file
// source: found in the files' paths, typed, escaped as Hive escapes them,
// and their values as literals and ranges for pruning.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/io/storage"
)

var hiveSegment = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)

// hivePairs returns the key=value directories of a file's path below the
// dataset's root, in order.
func hivePairs(path string) [][2]string {
	body, _, _ := strings.Cut(path, "?")
	segs := strings.Split(strings.ReplaceAll(body, "\\", "/"), "/")
	var out [][2]string
	for _, s := range segs[:len(segs)-1] {
		if m := hiveSegment.FindStringSubmatch(s); m != nil {
			v := m[2]
			if u, err := unescapeHive(v); err == nil {
				v = u
			}
			out = append(out, [2]string{m[1], v})
		}
	}
	return out
}

// hiveColumns finds the hive columns of files: the key=value directories
// every file has, in the same order, and their kinds (int64 when every
// value is an integer). Files that disagree are an error.
func hiveColumns(list []storage.File) ([]ops.HiveColumn, error) {
	if len(list) == 0 {
		return nil, nil
	}
	first := hivePairs(list[0].Rel)
	cols := make([]ops.HiveColumn, len(first))
	for i, p := range first {
		cols[i] = ops.HiveColumn{Name: p[0], Kind: "int64"}
	}
	for _, f := range list {
		pairs := hivePairs(f.Rel)
		same := len(pairs) == len(first)
		for i := 0; same && i < len(pairs); i++ {
			same = pairs[i][0] == cols[i].Name
		}
		if !same {
			return nil, fmt.Errorf("the hive directories of %s (%v) differ from those of %s (%v)", f.Path, pairs, list[0].Path, first)
		}
		for i, p := range pairs {
			if _, err := strconv.ParseInt(p[1], 10, 64); err != nil && p[1] != ops.HiveNull {
				cols[i].Kind = "string"
			}
		}
	}
	return cols, nil
}

// hiveLiterals are the values of the hive columns in path.
func hiveLiterals(cols []ops.HiveColumn, path string) []expr.Literal {
	pairs := hivePairs(path)
	out := make([]expr.Literal, len(cols))
	for i, c := range cols {
		v := pairs[i][1]
		switch {
		case v == ops.HiveNull:
			out[i] = expr.Literal{Kind: "null"}
		case c.Kind == "int64":
			n, _ := strconv.ParseInt(v, 10, 64)
			out[i] = expr.Literal{Kind: "int64", I: n}
		default:
			out[i] = expr.Literal{Kind: "string", S: v}
		}
	}
	return out
}

func hiveRange(l expr.Literal) expr.Range {
	if l.Kind == "null" {
		return expr.Range{Nulls: true, AllNull: true}
	}
	v := l.Value()
	return expr.Range{Min: v, Max: v}
}

func unescapeHive(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", err
			}
			b.WriteByte(byte(n))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), nil
}

// withHive adds the hive columns of files to schema.
func withHive(schema *arrow.Schema, list []storage.File) (*arrow.Schema, []ops.HiveColumn, error) {
	hive, err := hiveColumns(list)
	if err != nil {
		return nil, nil, err
	}
	fields := schema.Fields()
	for _, h := range hive {
		if schema.HasField(h.Name) {
			return nil, nil, fmt.Errorf("column %s is both in the files and a hive directory", h.Name)
		}
		fields = append(fields, arrow.Field{Name: h.Name, Type: ops.TypeNamed(h.Kind), Nullable: true})
	}
	return arrow.NewSchema(fields, nil), hive, nil
}

// hiveRanges are the ranges of the hive columns of a file.
func hiveRanges(hive []ops.HiveColumn, path string) map[string]expr.Range {
	if len(hive) == 0 {
		return nil
	}
	out := make(map[string]expr.Range, len(hive))
	for i, l := range hiveLiterals(hive, path) {
		out[hive[i].Name] = hiveRange(l)
	}
	return out
}

func hiveDir(path string) string {
	var b strings.Builder
	for _, p := range hivePairs(path) {
		b.WriteString(p[0] + "=" + p[1] + "/")
	}
	return b.String()
}
