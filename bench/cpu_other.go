//go:build !unix

package bench

import "time"

// processTimes is zero: this system's processor time is not read here.
func processTimes() (user, system time.Duration) { return 0, 0 }
