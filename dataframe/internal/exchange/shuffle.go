package exchange

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/dataframe/internal/ops"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/internal/kernel"
	"github.com/duskdata/dusk/internal/registry"
)

type HashSplitArgs struct {
	Keys []string `json:"keys"`
	N    int      `json:"n"`
	// Copy copies the pieces out as the partition is split, into many
	// outputs (see scatterPieces): pieces an unpack reads whole (an
	// aggregation's states, rows to concatenate or deduplicate), where a
	// join gathers its output straight from row pieces.
	Copy bool `json:"copy,omitempty"`
	// CopyKeys copies only the key columns out at the split into many
	// outputs (see scatterPieces), for a join, which reads them whole; its
	// other columns it gathers from the pieces.
	CopyKeys bool `json:"copy_keys,omitempty"`
	// PackKeys copies string keys out packed (kernel.PackedStrings) where
	// Copy copies the pieces out at once: an aggregation's states, whose
	// combine groups the packed words and whose last step unpacks them.
	PackKeys bool `json:"pack_keys,omitempty"`
}

// hashBuffers recycles the row hashes of splits, garbage once each row's
// output is known (as idBuffers recycles their outputs).
var hashBuffers = sync.Pool{New: func() any { return new([]uint64) }}

func init() {
	for name, op := range map[string]registry.Op{
		OpConcat: ConcatOp, OpHashSplit: HashSplitOp, OpDedup: DedupOp, OpSlices: SlicesOp, OpNbytes: NbytesOp,
		OpJoin: JoinOp, OpJoinBuild: JoinBuildOp, OpJoinRead: JoinReadOp, OpJoinScan: JoinScanOp, OpJoinFilter: JoinFilterOp,
		OpJoinMarks: JoinMarksOp, OpJoinMarked: JoinMarkedOp, OpLimit: LimitOp,
		OpSample: SampleOp, OpBounds: BoundsOp, OpRangeSplit: RangeSplitOp, OpSortRows: SortRowsOp, OpLoc: LocOp, OpTop: TopOp,
	} {
		registry.Register(name, op)
	}
}

// HashSplitOp splits a partition by a hash of its key columns.
func HashSplitOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a HashSplitArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpHashSplit, err)
	}
	rec, err := ops.RecordIn(OpHashSplit, inputs[0])
	if err != nil {
		return nil, err
	}
	keys, _, err := KeyColumns(rec, a.Keys)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpHashSplit, err)
	}
	hbuf, pbuf := hashBuffers.Get().(*[]uint64), IDBuffers.Get().(*[]int32)
	defer hashBuffers.Put(hbuf)
	defer IDBuffers.Put(pbuf)
	*hbuf = kernel.HashRows(keys, *hbuf)
	*pbuf = kernel.PartitionOf(*hbuf, a.N, *pbuf)
	parts := *pbuf
	if a.Copy && a.N >= scatterPieces && len(parts) >= 8*a.N {
		var pack []int
		for _, k := range a.Keys {
			if !a.PackKeys {
				break
			}
			if j, err := expr.ColumnIndex(rec.Schema(), k); err == nil { // found by KeyColumns
				pack = append(pack, j)
			}
		}
		return scattered(rec, parts, a.N, pack), nil
	}
	if a.CopyKeys && a.N >= scatterPieces {
		return splitOf(rec, parts, a.N, a.Keys, keys), nil
	}
	return splitOf(rec, parts, a.N, nil, nil), nil
}

// Gathered concatenates one side's pieces into one record the caller
// releases; out gives its columns (nil: the first piece's).
func Gathered(op string, tc *registry.Context, inputs []any, s int, out []ops.ColSpec) (arrow.Record, error) {
	side, err := sideOf(op, tc, inputs, s, out)
	if err != nil {
		return nil, err
	}
	defer side.release()
	var schema *arrow.Schema
	if out != nil {
		schema = ops.SchemaOf(out)
	}
	rec, err := side.record(schema)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return rec, nil
}

// ConcatOp assembles a partition from its pieces or inputs, in order.
func ConcatOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a ops.ConcatArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpConcat, err)
	}
	if tc != nil && tc.Pieces != nil {
		return Gathered(OpConcat, tc, inputs, 0, a.Out)
	}
	return concatRecords(OpConcat, a.Out, inputs)
}

// concatRecords concatenates partitions (inputs) into one record the
// caller releases; out gives its columns.
func concatRecords(op string, out []ops.ColSpec, inputs []any) (arrow.Record, error) {
	recs := make([]arrow.Record, len(inputs))
	for i, v := range inputs {
		r, err := ops.RecordIn(op, v)
		if err != nil {
			return nil, err
		}
		recs[i] = r
	}
	rec, err := kernel.ConcatRecordsDict(ops.SchemaOf(out), recs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return rec, nil
}

type DedupArgs struct {
	Cols []string      `json:"cols"`
	Out  []ops.ColSpec `json:"out"`
}

func DedupOp(tc *registry.Context, raw []byte, inputs []any) (any, error) {
	var a DedupArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpDedup, err)
	}
	rec, err := Gathered(OpDedup, tc, inputs, 0, a.Out)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	keys, _, err := KeyColumns(rec, a.Cols)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpDedup, err)
	}
	return kernel.TakeRecord(rec, kernel.FirstRows(keys)), nil
}

// Slice is the k-th of "of" equal row ranges of an input partition.
type Slice struct {
	Part int `json:"part"`
	K    int `json:"k"`
	Of   int `json:"of"`
}

type SliceArgs struct {
	Slices []Slice       `json:"slices"`
	Out    []ops.ColSpec `json:"out"`
}

// SlicesOp concatenates slices of its inputs.
func SlicesOp(_ *registry.Context, raw []byte, inputs []any) (any, error) {
	var a SliceArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("%s: decode arguments: %w", OpSlices, err)
	}
	recs := make([]arrow.Record, len(inputs))
	for i, v := range inputs {
		rec, err := ops.RecordIn(OpSlices, v)
		if err != nil {
			return nil, err
		}
		s, n := a.Slices[i], rec.NumRows()
		recs[i] = rec.NewSlice(int64(s.K)*n/int64(s.Of), int64(s.K+1)*n/int64(s.Of))
		defer recs[i].Release()
	}
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	rec, err := kernel.ConcatRecordsDict(ops.SchemaOf(a.Out), recs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", OpSlices, err)
	}
	return rec, nil
}

// NbytesOp measures a partition's buffers.
func NbytesOp(_ *registry.Context, _ []byte, inputs []any) (any, error) {
	rec, err := ops.RecordIn(OpNbytes, inputs[0])
	if err != nil {
		return nil, err
	}
	var n int64
	for _, c := range rec.Columns() {
		n += int64(recordBytes(c.Data()))
	}
	return n, nil
}

func recordBytes(d arrow.ArrayData) int {
	n := 0
	for _, b := range d.Buffers() {
		if b != nil {
			n += b.Len()
		}
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		n += recordBytes(d.Dictionary())
	}
	return n
}

// EmptyRecord is a record of no rows with the columns of out.
func EmptyRecord(out []ops.ColSpec) arrow.Record {
	rec, _ := kernel.ConcatRecords(ops.SchemaOf(out), nil)
	return rec
}
