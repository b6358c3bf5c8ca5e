package plan

import (
	"slices"

	"github.com/duskdata/dusk/dataframe/internal/expr"
	"github.com/duskdata/dusk/io/files"
)

// mergeSlices joins consecutive slices of row groups of one file into one
// slice of several row groups, read as one. A partition's pieces stay a row
// group each, so that a filter skips the row groups it rules out.
func mergeSlices(in []files.Slice) []files.Slice {
	var out []files.Slice
	for _, s := range in {
		if n := len(out); n > 0 && s.Units != nil && out[n-1].Units != nil && out[n-1].Path == s.Path {
			out[n-1].Units = append(slices.Clip(out[n-1].Units), s.Units...)
			continue
		}
		out = append(out, s)
	}
	return out
}

// unionRanges is what is known of the values of two units together.
func unionRanges(a, b map[string]expr.Range) map[string]expr.Range {
	out := make(map[string]expr.Range, len(a))
	for col, ra := range a {
		rb, ok := b[col]
		if !ok {
			continue
		}
		r := expr.Range{Nulls: ra.Nulls || rb.Nulls, AllNull: ra.AllNull && rb.AllNull, Paged: ra.Paged && rb.Paged}
		switch {
		case ra.AllNull:
			r.Min, r.Max = rb.Min, rb.Max
		case rb.AllNull:
			r.Min, r.Max = ra.Min, ra.Max
		case ra.Min != nil && rb.Min != nil:
			r.Min, r.Max = ra.Min, ra.Max
			if c, ok := expr.Compare(rb.Min, ra.Min); ok && c < 0 {
				r.Min = rb.Min
			}
			if c, ok := expr.Compare(rb.Max, ra.Max); ok && c > 0 {
				r.Max = rb.Max
			}
		}
		out[col] = r
	}
	return out
}
