//go:build !linux

package store

import "os"

// adviseRandom has no portable equivalent; reads may read ahead.
func adviseRandom(*os.File) {}

// adviseWillNeed has no portable equivalent: nothing is read ahead.
func adviseWillNeed(*os.File, int64, int64) {}
