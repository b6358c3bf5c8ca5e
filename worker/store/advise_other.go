//go:build !linux

package store

import "os"

// adviseRandom has no portable equivalent; reads may read ahead.
func adviseRandom(*os.File) {}
