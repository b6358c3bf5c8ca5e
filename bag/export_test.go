package bag

// MustMap is a plain Go map over a slice, for references in tests.
func MustMap[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
