//go:build nogpu

package gpu

import "errors"

// openDriver fails: a binary built with -tags nogpu (the static one of the
// container image) loads no driver library, so that it needs no C library.
func openDriver(string) (*driver, error) {
	return nil, errors.New("gpu: this binary was built without GPU support (-tags nogpu)")
}
