package dataframe

import (
	"fmt"
	"slices"

	"github.com/duskdata/dusk/dataframe/internal/exchange"
	"github.com/duskdata/dusk/dataframe/internal/ops"
	"github.com/duskdata/dusk/dataframe/internal/plan"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/internal/kernel"
)

// How is the kind of a join.
type How string

// The joins: Inner keeps matched rows, Left every left row, Right every
// right row, Outer every row of either; Semi keeps each left row that has
// a match, once, and Anti each that has none, with the left's columns
// alone (SQL's EXISTS and NOT EXISTS); Cross pairs every left row with
// every right row and takes no keys.
const (
	Inner How = "inner"
	Left  How = "left"
	Right How = "right"
	Outer How = "outer"
	Semi  How = "semi"
	Anti  How = "anti"
	Cross How = "cross"
)

// MergeOptions say how Merge joins two frames.
type MergeOptions struct {
	// How is Inner (the default), Left, Right, Outer, Semi or Anti.
	How How
	// On names key columns both frames have; the result has each once.
	On []string
	// LeftOn and RightOn name key columns of each frame, pairwise, when
	// their names differ; the result keeps both.
	LeftOn, RightOn []string
	// Suffixes rename other columns found in both frames: "_x" and "_y"
	// by default, as pandas.
	Suffixes [2]string
	// BroadcastBytes: a side whose input is known to be smaller than this
	// (or that has one partition, or is known to hold at most an eighth of
	// the other's and 256 MiB) is sent whole to every partition of the
	// other, which is then not shuffled; its hash table is built once in
	// each process. Default 32 MiB; negative: only a side of one partition.
	BroadcastBytes int64
}

// DefaultBroadcastBytes is the size under which Merge broadcasts a side.
const DefaultBroadcastBytes = 32 << 20

// Join merges with right on columns both have.
func (f *Frame) Join(right *Frame, how How, on ...string) *Frame {
	return f.Merge(right, MergeOptions{How: how, On: on})
}

// Merge joins f (left) with right where the key columns are equal, as
// pandas' merge; null keys match each other. The rows come out in no
// particular order. Rows meet by a broadcast of a small side, on their
// partitions as they are when both are hash-partitioned on the keys into
// as many partitions, or else by a peer-to-peer hash shuffle of both.
func (f *Frame) Merge(right *Frame, o MergeOptions) *Frame {
	if f.err != nil {
		return f
	}
	if right.err != nil {
		return right
	}
	if o.How == Cross {
		return f.cross(right, o)
	}
	how, err := parseHow(o.How)
	if err != nil {
		return failed(fmt.Errorf("Merge: %w", err))
	}
	lon, ron := o.LeftOn, o.RightOn
	merged := o.On != nil
	switch {
	case merged && (lon != nil || ron != nil):
		return failed(fmt.Errorf("Merge: give On, or LeftOn and RightOn, not both"))
	case merged:
		lon, ron = o.On, o.On
	case len(lon) != len(ron):
		return failed(fmt.Errorf("Merge: LeftOn names %d columns and RightOn %d", len(lon), len(ron)))
	}
	if len(lon) == 0 {
		return failed(fmt.Errorf("Merge: no key columns: give On, or LeftOn and RightOn"))
	}
	ls, rs := f.plan.Schema(), right.plan.Schema()
	cast := false
	for i := range lon {
		lf, err := expr.Field(ls, lon[i])
		if err != nil {
			return failed(fmt.Errorf("Merge: left key: %w", err))
		}
		rf, err := expr.Field(rs, ron[i])
		if err != nil {
			return failed(fmt.Errorf("Merge: right key: %w", err))
		}
		if kernel.SameType(lf.Type, rf.Type) {
			continue
		}
		// Numbers of different types join by value: both keys become
		// their common type (an int32 key joins an int64 one as int64, a
		// decimal(12,2) a decimal(18,2) one as decimal(18,2)).
		kl, kr := expr.KindOfType(lf.Type), expr.KindOfType(rf.Type)
		if !expr.IsNumberKind(kl) || !expr.IsNumberKind(kr) {
			return failed(fmt.Errorf("Merge: key columns of different types: left %s is %s, right %s is %s",
				lon[i], kernel.TypeName(lf.Type), ron[i], kernel.TypeName(rf.Type)))
		}
		common := expr.NumberSupertype(lf.Type, rf.Type)
		if w, ok := expr.WideChoice([]arrow.DataType{lf.Type, rf.Type}, []int{0, 1}); ok {
			common = w // a decimal wide enough for both, its values exact
		} else if kl == kernel.KindDecimal || kr == kernel.KindDecimal {
			common, _ = expr.CommonType(lf.Type, rf.Type) // decimal(18, the larger scale), or float64
		}
		if !arrow.TypeEqual(lf.Type, common) {
			f = f.WithColumn(lon[i], Col(lon[i]).Cast(common))
		}
		if !arrow.TypeEqual(rf.Type, common) {
			right = right.WithColumn(ron[i], Col(ron[i]).Cast(common))
		}
		cast = true
	}
	if cast {
		return f.Merge(right, o)
	}
	sfx := o.Suffixes
	if sfx == [2]string{} {
		sfx = [2]string{"_x", "_y"}
	}
	var outs []exchange.JoinCol
	both := func(name string) bool { return ls.HasField(name) && rs.HasField(name) }
	taken := ops.SetOf{}
	for _, fl := range ls.Fields() {
		c := exchange.JoinCol{Side: 0, Src: fl.Name, Name: fl.Name, Key: -1}
		if k := slices.Index(lon, fl.Name); merged && k >= 0 {
			c.Key = k
		} else if both(fl.Name) && how != kernel.Semi && how != kernel.Anti {
			c.Name += sfx[0]
		}
		outs = append(outs, c)
	}
	for _, fl := range rs.Fields() {
		if merged && slices.Contains(ron, fl.Name) || how == kernel.Semi || how == kernel.Anti {
			continue
		}
		c := exchange.JoinCol{Side: 1, Src: fl.Name, Name: fl.Name, Key: -1}
		if both(fl.Name) {
			c.Name += sfx[1]
		}
		outs = append(outs, c)
	}
	for _, c := range outs {
		if taken[c.Name] {
			return failed(fmt.Errorf("Merge: two result columns are named %q; choose other Suffixes", c.Name))
		}
		taken[c.Name] = true
	}
	limit := o.BroadcastBytes
	if limit == 0 {
		limit = DefaultBroadcastBytes
	}
	return &Frame{plan: plan.NewJoin(f.plan, right.plan, exchange.JoinSpec{How: how, LeftOn: lon, RightOn: ron, Cols: outs, Broadcast: limit})}
}

// crossKey is the constant key a cross join matches every row by.
const crossKey = "__dusk_cross"

// cross is Merge's cross join: an inner join on a constant key, with the
// right side in one partition, which is sent whole to every left one.
func (f *Frame) cross(right *Frame, o MergeOptions) *Frame {
	if o.On != nil || o.LeftOn != nil || o.RightOn != nil {
		return failed(fmt.Errorf("Merge: a cross join takes no key columns"))
	}
	o.How, o.On, o.BroadcastBytes = Inner, []string{crossKey}, -1
	j := f.WithColumn(crossKey, Lit(int64(0))).Merge(right.Repartition(1).WithColumn(crossKey, Lit(int64(0))), o)
	if j.err != nil {
		return j
	}
	return j.Drop(crossKey)
}

func parseHow(h How) (kernel.JoinType, error) {
	if h == "" {
		return kernel.Inner, nil
	}
	for t := kernel.Inner; t <= kernel.Anti; t++ {
		if t.String() == string(h) {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown join %q: use Inner, Left, Right, Outer, Semi, Anti or Cross", string(h))
}
