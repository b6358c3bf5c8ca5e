//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processTimes is the processor time, user and system, this process has
// spent; zero where it cannot be read.
func processTimes() (user, system time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
