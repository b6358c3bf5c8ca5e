package parquet

import (
	"bytes"
	"encoding/base64"
	"fmt"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/parquet-go/parquet-go/format"
)

// arrowSchemaKey is the key-value metadata entry in which Arrow's Parquet
// writers (pyarrow, arrow-rs, Arrow Go) keep the file's Arrow schema, as
// base64 of an IPC schema message. Write keeps it, and reading takes from
// it what Parquet's own types cannot say: that an INT64 column holds
// durations in a unit, and a UTC-adjusted timestamp's time zone.
const arrowSchemaKey = "ARROW:schema"

// encodeArrowSchema is s as arrowSchemaKey's value.
func encodeArrowSchema(s *arrow.Schema) (string, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s))
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("arrow schema: %w", err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// arrowSchemaOf is the Arrow schema a file's metadata keeps, or nil where
// it keeps none or one that does not decode (the Parquet types stand).
func arrowSchemaOf(meta *format.FileMetaData) (s *arrow.Schema) {
	defer func() {
		if recover() != nil {
			s = nil // a damaged flatbuffer
		}
	}()
	for _, kv := range meta.KeyValueMetadata {
		if kv.Key != arrowSchemaKey {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(kv.Value)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(kv.Value); err != nil {
				return nil
			}
		}
		r, err := ipc.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil
		}
		defer r.Release()
		return r.Schema()
	}
	return nil
}
