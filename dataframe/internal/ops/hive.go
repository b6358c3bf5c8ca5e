package ops

// Hive-style directories (year=2024/month=01/) as columns of a file
// source: found in the files' paths, typed, escaped as Hive escapes them,
// and their values as literals and ranges for pruning.

import (
	"fmt"
	"strings"
)

// HiveColumn is a column that hive-style directories (year=2024/) give.
type HiveColumn struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // int64 or string
}

// HiveNull is the directory value that stands for null, as Hive and Spark
// write it.
const HiveNull = "__HIVE_DEFAULT_PARTITION__"

// escapeHive and unescapeHive keep a value's '/', '=' and '%' out of a
// directory name, as Hive does.
func escapeHive(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '/' || c == '=' || c == '%' || c == '\\' || c == '?' || c == '*' || c < 0x20 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
