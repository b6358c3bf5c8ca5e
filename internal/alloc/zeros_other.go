//go:build !(linux || darwin || freebsd)

package alloc

// readOnlyZeros is a cleared slice of the heap where no read-only mapping
// is made.
func readOnlyZeros(size int) []byte { return make([]byte, size) }
