package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Find checks that the executable a [Spec] with this Path and Dir would
// run exists and may be executed, without running it, and returns the
// file found. As at start, a name without a slash is looked up in PATH and
// a relative path is taken relative to dir ("" meaning pier's own
// directory). The plan calls it so that a missing provider fails before
// anything changes, instead of midway through an apply.
func Find(path, dir string) (string, error) {
	if path == "" {
		return "", errors.New("no executable given")
	}
	if !strings.Contains(path, "/") {
		found, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("executable %q is not found in PATH", path)
		}
		return found, nil
	}
	full := path
	if !filepath.IsAbs(path) && dir != "" {
		full = filepath.Join(dir, path)
	}
	info, err := os.Stat(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("executable %s does not exist", describe(path, full))
	case err != nil:
		return "", fmt.Errorf("executable %s: %w", describe(path, full), err)
	case info.IsDir():
		return "", fmt.Errorf("executable %s is a directory", describe(path, full))
	}
	if err := unix.Access(full, unix.X_OK); err != nil {
		return "", fmt.Errorf("executable %s is not executable (mode %s): %w", describe(path, full), info.Mode().Perm(), err)
	}
	return full, nil
}

// describe names an executable as written and, if different, as resolved.
func describe(path, full string) string {
	if path == full {
		return fmt.Sprintf("%q", path)
	}
	return fmt.Sprintf("%q (%s)", path, full)
}
