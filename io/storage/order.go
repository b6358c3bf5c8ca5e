package storage

import (
	"slices"
	"strings"
)

// sortFiles orders files as people number them: path segment by segment,
// with runs of digits compared as numbers, so that part.2 comes before
// part.10 (as Dask orders the parts it reads) while the files of one
// directory stay together.
func sortFiles(files []File) {
	slices.SortFunc(files, func(a, b File) int { return comparePaths(a.Path, b.Path) })
}

func comparePaths(a, b string) int {
	for {
		sa, ra, moreA := strings.Cut(a, "/")
		sb, rb, moreB := strings.Cut(b, "/")
		if c := compareNatural(sa, sb); c != 0 {
			return c
		}
		switch {
		case !moreA && !moreB:
			return 0
		case !moreA:
			return -1
		case !moreB:
			return 1
		}
		a, b = ra, rb
	}
}

// compareNatural compares a and b with runs of digits taken as numbers
// (leading zeros aside; ties fall back to plain order).
func compareNatural(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na := strings.TrimLeft(a[si:i], "0")
			nb := strings.TrimLeft(b[sj:j], "0")
			if len(na) != len(nb) {
				if len(na) < len(nb) {
					return -1
				}
				return 1
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			continue
		}
		if a[i] != b[j] {
			if a[i] < b[j] {
				return -1
			}
			return 1
		}
		i++
		j++
	}
	if c := (len(a) - i) - (len(b) - j); c != 0 {
		if c < 0 {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
