package local_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestFileMode: a file with a mode has exactly that mode whatever the
// umask and whatever mode an existing file had, set before the contents
// are written; without one, a new file gets the umask's and an existing
// one keeps its own.
func TestFileMode(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		existing os.FileMode // 0: no file before
		inputs   string
		want     os.FileMode
	}{
		"new, private":              {inputs: `{"name":"f","contents":"s","mode":"0600"}`, want: 0o600},
		"three digits":              {inputs: `{"name":"f","contents":"s","mode":"640"}`, want: 0o640},
		"looser existing tightened": {existing: 0o644, inputs: `{"name":"f","contents":"s","mode":"0600"}`, want: 0o600},
		"wider than the umask":      {inputs: `{"name":"f","contents":"s","mode":"0666"}`, want: 0o666},
		"unset keeps existing":      {existing: 0o640, inputs: `{"name":"f","contents":"s"}`, want: 0o640},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "f")
			if tc.existing != 0 {
				if err := os.WriteFile(path, []byte("old"), tc.existing); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tc.existing); err != nil {
					t.Fatal(err)
				}
			}
			run(t, dir, []step{{req: create("file", tc.inputs, false), want: created}})
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != tc.want {
				t.Errorf("mode = %#o, want %#o", got, tc.want)
			}
		})
	}
}

// TestFileModeUpdate: changing only the mode updates the file in place.
func TestFileModeUpdate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := `{"name":"f","contents":"s","mode":"0644"}`
	run(t, dir, []step{
		{req: create("file", old, true), want: created},
		{req: update("file", old, `{}`, `{"name":"f","contents":"s","mode":"0600"}`), want: `{"updateResourceResponse":{"outputProperties":{}}}`},
	})
	fi, err := os.Stat(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("mode = %s, want 0600", fmt.Sprintf("%#o", got))
	}
}

// TestFileParents: a file in directories that do not exist yet creates
// them, as Terraform's local_file does, with mkdir -p's mode (0777 before
// the umask, compared with a directory made the same way); an existing
// directory keeps its mode, and a parent that is a file is an error
// naming the file.
func TestFileParents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "kept"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, []step{
		{req: create("file", `{"name":"a/b/f","contents":"s","mode":"0600"}`, false), want: created},
		{req: create("file", `{"name":"kept/new/f","contents":"s"}`, false), want: created},
		{req: create("file", `{"name":"plain/f","contents":"s"}`, false), wantErr: []string{`write "plain/f": create its directory: mkdir`, "not a directory"}},
	})
	ref := filepath.Join(dir, "reference")
	if err := os.Mkdir(ref, 0o777); err != nil {
		t.Fatal(err)
	}
	want := mode(t, ref)
	for path, want := range map[string]os.FileMode{"a": want, "a/b": want, "kept": 0o700, "kept/new": want, "a/b/f": 0o600} {
		if got := mode(t, filepath.Join(dir, path)); got != want {
			t.Errorf("%s: mode = %#o, want %#o", path, got, want)
		}
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}
