package array

import "testing"

// TestReductionsAreTheTables checks that each reduction is named as the
// kernel's aggregation it is, and answers in the type the kernel's table
// gives it (an index for the arg ones).
func TestReductionsAreTheTables(t *testing.T) {
	for name, r := range reductions {
		want := r.fn.String()
		if r.arg {
			want = "arg" + want
		}
		if name != want {
			t.Errorf("reduction %q is the table's %s", name, want)
		}
		for _, dt := range []DType{Float64, Int64} {
			got := r.outType(dt)
			switch {
			case r.arg && got != Int64:
				t.Errorf("%s over %s answers in %s, want int64", name, dt, got)
			case (r.family == means || r.family == moments) && got != Float64:
				t.Errorf("%s over %s answers in %s, want float64", name, dt, got)
			case (r.family == sums || r.family == extremes) && !r.arg && got != dt:
				t.Errorf("%s over %s answers in %s, want %s", name, dt, got, dt)
			}
		}
	}
}
