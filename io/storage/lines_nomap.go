//go:build !(linux || darwin || freebsd)

package storage

import (
	"errors"
	"os"
)

// mapFile fails where files are not mapped: ReadLines reads them instead.
func mapFile(*os.File, int64, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) error { return nil }
