// Package parquettest damages Parquet files the way tests of bounded
// reading need: a valid file with its footer changed. Only tests import
// it.
//
// Must never import: anything of Dusk.
package parquettest

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// WithFooter is the file data with its footer changed by edit.
func WithFooter(t testing.TB, data []byte, edit func(*format.FileMetaData)) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	start := len(data) - 8 - n
	var meta format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[start:start+n], &meta); err != nil {
		t.Fatal(err)
	}
	edit(&meta)
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &meta)
	if err != nil {
		t.Fatal(err)
	}
	out := append(slices.Clone(data[:start]), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}
