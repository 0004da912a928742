package proc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

func TestFind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testbin.WriteExecutable(t, filepath.Join(dir, "run"), []byte("#!/bin/sh\n"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "data"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		path, dir string
		wantErr   string // "" means found
	}{
		"relative to dir":  {"./run", dir, ""},
		"absolute":         {filepath.Join(dir, "run"), "", ""},
		"in PATH":          {"sh", dir, ""},
		"missing":          {"./nope", dir, "does not exist"},
		"not executable":   {"./data", dir, "is not executable"},
		"directory":        {"./", dir, "is a directory"},
		"not in PATH":      {"pier-no-such-program", dir, "is not found in PATH"},
		"empty":            {"", dir, "no executable given"},
		"missing absolute": {filepath.Join(dir, "nope"), "", "does not exist"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Find(tc.path, tc.dir)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("Find(%q, %q): %v", tc.path, tc.dir, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("Find(%q, %q) = %v, want an error containing %q", tc.path, tc.dir, err, tc.wantErr)
			}
		})
	}
}
