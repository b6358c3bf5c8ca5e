package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// scaleSuite runs the groupby questions ids on the table at each of sizes
// (a comma-separated list of row counts, smallest first), one size loaded
// at a time, then prints each step's growth from one size to the next
// beside the rows', so that a cost growing faster than the data shows.
func (r *runner) scaleSuite(dir, sizes string, partitions int, ids []string) error {
	var ns []int
	names := strings.Split(sizes, ",")
	for _, s := range names {
		n, err := parseCount(s)
		if err != nil {
			return fmt.Errorf("--sizes: %w", err)
		}
		if len(ns) > 0 && n <= ns[len(ns)-1] {
			return fmt.Errorf("--sizes: %s is not larger than the size before it", s)
		}
		ns = append(ns, n)
	}
	if len(ns) < 2 {
		return fmt.Errorf("--sizes: %q gives one size; growth needs two or more", sizes)
	}
	for _, n := range ns {
		r.scale = int64(n)
		if err := r.groupby(dataset{dir: dir}, n, partitions, ids); err != nil {
			return fmt.Errorf("%s rows: %w", strconv.Itoa(n), err)
		}
	}
	r.growth(names, ns)
	return nil
}

// growth prints, for each step and run, its seconds at each size and the
// factor by which they grew from the size before.
func (r *runner) growth(names []string, ns []int) {
	type step struct {
		question string
		run      int
	}
	secs := map[step]map[int64]float64{}
	var order []step
	for _, res := range r.results {
		s := step{res.Question, res.Run}
		if secs[s] == nil {
			secs[s] = map[int64]float64{}
			order = append(order, s)
		}
		secs[s][res.Scale] = res.Seconds
	}
	head := []string{fmt.Sprintf("%-13s  %3s", "growth", "run")}
	for i, name := range names {
		head = append(head, fmt.Sprintf("%9s", name))
		if i > 0 {
			head = append(head, fmt.Sprintf("%9s", fmt.Sprintf("×%.3g", float64(ns[i])/float64(ns[i-1]))))
		}
	}
	fmt.Fprintf(r.out, "\n%s\n", strings.Join(head, "  "))
	for _, s := range order {
		row := []string{fmt.Sprintf("%-13s  %3d", s.question, s.run)}
		for i, n := range ns {
			t, ok := secs[s][int64(n)]
			row = append(row, fmt.Sprintf("%9s", seconds(t, ok)))
			if i > 0 {
				prev, was := secs[s][int64(ns[i-1])]
				g := "-"
				if ok && was && prev > 0 {
					g = fmt.Sprintf("×%.1f", t/prev)
				}
				row = append(row, fmt.Sprintf("%9s", g))
			}
		}
		fmt.Fprintln(r.out, strings.Join(row, "  "))
	}
}

func seconds(t float64, ok bool) string {
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(t, 'f', 3, 64)
}
