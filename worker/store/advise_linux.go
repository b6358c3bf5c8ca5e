package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// adviseRandom tells the kernel not to read ahead in f: a read of some
// columns of a spill file reads each one's section whole, and the
// kernel's readahead past a section read the next columns' bytes too,
// which at 5e8 rows doubled what db-benchmark's q1 read from disk.
func adviseRandom(f *os.File) {
	unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_RANDOM) // a hint: its failure costs speed alone
}

// adviseWillNeed has the kernel start reading n bytes of f at off (to the
// end for 0) into its cache, without waiting for them.
func adviseWillNeed(f *os.File, off, n int64) {
	unix.Fadvise(int(f.Fd()), off, n, unix.FADV_WILLNEED) // a hint, as above
}
