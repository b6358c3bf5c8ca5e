package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// ErrNotAllowed is returned (wrapped) for a path outside the prefixes that
// AllowOnly admits.
var ErrNotAllowed = errors.New("outside the paths this process may use")

// allowed holds the rules of AllowOnly: normalized prefixes, and the
// prefixes as given, for errors. Nil admits every path.
var allowed atomic.Pointer[allowRules]

type allowRules struct {
	prefixes []string
	given    string
}

// AllowOnly limits every listing, read and write of this process's storage
// to paths under the given prefixes (`dusk worker --allow-path`): local
// directories, or URL prefixes with their scheme, such as s3://bucket/ or
// s3://bucket/team/. Local paths are compared after making them absolute,
// cleaning away "..", and following symbolic links, so that neither leads
// out. No prefixes admit every path again. It governs Dusk's readers and
// writers, not what a registered Go function does by itself.
func AllowOnly(prefixes []string) error {
	if len(prefixes) == 0 {
		allowed.Store(nil)
		return nil
	}
	r := &allowRules{given: strings.Join(prefixes, ", ")}
	for _, p := range prefixes {
		if p == "" {
			return errors.New("--allow-path: an empty prefix")
		}
		if isURL(p) && !strings.HasPrefix(p, "file://") {
			r.prefixes = append(r.prefixes, strings.TrimSuffix(p, "/"))
			continue
		}
		local, err := realPath(strings.TrimPrefix(p, "file://"))
		if err != nil {
			return fmt.Errorf("--allow-path %s: %w", p, err)
		}
		r.prefixes = append(r.prefixes, local)
	}
	allowed.Store(r)
	return nil
}

// checkAllowed fails for a path (local, or a URL) outside the rules.
func checkAllowed(p string, local bool) error {
	r := allowed.Load()
	if r == nil {
		return nil
	}
	target := p
	if local {
		real, err := realPath(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		target = real
	} else {
		target, _, _ = strings.Cut(p, "?")
	}
	for _, prefix := range r.prefixes {
		if target == prefix || strings.HasPrefix(target, strings.TrimSuffix(prefix, "/")+"/") {
			return nil
		}
	}
	return fmt.Errorf("%s is %w (--allow-path %s)", p, ErrNotAllowed, r.given)
}

// realPath makes p absolute and clean and follows the links of its longest
// part that exists (what does not exist yet, a file to write, is appended).
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for dir := abs; ; {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// isURL reports whether p names a scheme ("s3://...").
func isURL(p string) bool {
	scheme, _, ok := strings.Cut(p, "://")
	return ok && !strings.ContainsAny(scheme, "/\\.")
}
