//go:build linux || darwin

package filehash

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testMinAge stands in for DefaultMinAge: longer than the clock tick of
// the file systems tests run on, short enough to wait for.
const testMinAge = 50 * time.Millisecond

func content(b byte) []byte { return bytes.Repeat([]byte{b}, MinSize+1) }

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// settle waits until the file's last change is testMinAge old, so that
// the cache may remember it and any later write gets a later ctime. It
// waits for the clock, not for another goroutine.
func settle(tb testing.TB, path string) {
	tb.Helper()
	info, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	id, ok := identify(info)
	if !ok {
		tb.Fatalf("%s: no file identity", path)
	}
	time.Sleep(time.Until(time.Unix(0, max(id.MtimeNS, id.CtimeNS)).Add(testMinAge + time.Millisecond)))
}

func write(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.WriteFile(path, data, 0o755); err != nil {
		tb.Fatal(err)
	}
}

func TestCache(t *testing.T) {
	t.Parallel()
	// Each case hashes a settled file with one cache, changes something,
	// then hashes again with a second cache on the same directory, as
	// the next command would.
	tests := map[string]struct {
		change   func(t *testing.T, exe, cacheDir string)
		cacheDir func(t *testing.T, base string) string // default base/cache
		minAge   time.Duration
		want     []byte // content the second hash is of; default the first
		rehashed bool   // the second cache reads the file
		forgets  bool   // the first cache reads it again too
	}{
		"unchanged file is not read again": {},
		"rewritten with the same size and mtime restored": {
			change: func(t *testing.T, exe, _ string) {
				info, err := os.Stat(exe)
				if err != nil {
					t.Fatal(err)
				}
				f, err := os.OpenFile(exe, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteAt([]byte{'B'}, 100); err != nil {
					t.Fatal(err)
				}
				f.Close()
				if err := os.Chtimes(exe, info.ModTime(), info.ModTime()); err != nil {
					t.Fatal(err)
				}
				if again, _ := os.Stat(exe); !again.ModTime().Equal(info.ModTime()) || again.Size() != info.Size() {
					t.Fatal("mtime or size not restored")
				}
			},
			want:     append(append(content('A')[:100:100], 'B'), content('A')[101:]...),
			rehashed: true,
		},
		"replaced by a rename with the same size and mtime": {
			change: func(t *testing.T, exe, _ string) {
				info, _ := os.Stat(exe)
				other := exe + ".new"
				write(t, other, content('C'))
				if err := os.Chtimes(other, info.ModTime(), info.ModTime()); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(other, exe); err != nil {
					t.Fatal(err)
				}
			},
			want:     content('C'),
			rehashed: true,
		},
		"chmod": {
			change: func(t *testing.T, exe, _ string) {
				if err := os.Chmod(exe, 0o700); err != nil {
					t.Fatal(err)
				}
			},
			rehashed: true,
		},
		"corrupt cache file": {
			change: func(t *testing.T, _, cacheDir string) {
				write(t, filepath.Join(cacheDir, fileName), []byte(`{"version":1,"files":{"/x":`))
			},
			rehashed: true,
		},
		"cache of another version": {
			change: func(t *testing.T, _, cacheDir string) {
				write(t, filepath.Join(cacheDir, fileName), []byte(`{"version":2,"files":{}}`))
			},
			rehashed: true,
		},
		"cache file removed": {
			change: func(t *testing.T, _, cacheDir string) {
				if err := os.Remove(filepath.Join(cacheDir, fileName)); err != nil {
					t.Fatal(err)
				}
			},
			rehashed: true,
		},
		"unwritable cache directory": {
			// A directory below a regular file cannot be created, even
			// by root.
			cacheDir: func(t *testing.T, base string) string {
				write(t, filepath.Join(base, "file"), nil)
				return filepath.Join(base, "file", "cache")
			},
			rehashed: true,
		},
		"no cache directory": {
			cacheDir: func(*testing.T, string) string { return "" },
			rehashed: true,
		},
		"file changed too recently to be remembered": {
			minAge:   time.Hour,
			rehashed: true,
			forgets:  true,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			exe := filepath.Join(base, "terraform-provider-x")
			cacheDir := filepath.Join(base, "cache")
			if tc.cacheDir != nil {
				cacheDir = tc.cacheDir(t, base)
			}
			minAge := tc.minAge
			if minAge == 0 {
				minAge = testMinAge
			}
			write(t, exe, content('A'))
			settle(t, exe)
			first := New(cacheDir, minAge)
			got, err := first.SHA256(exe)
			if err != nil {
				t.Fatal(err)
			}
			if got != sum(content('A')) || first.hashed != 1 {
				t.Fatalf("first SHA256 = %s after %d reads, want %s after 1", got, first.hashed, sum(content('A')))
			}
			// The same cache does not read an unchanged file twice either.
			if again, _ := first.SHA256(exe); again != got || (first.hashed != 1) != tc.forgets {
				t.Errorf("first cache, second SHA256 = %s after %d reads", again, first.hashed)
			}
			if tc.change != nil {
				tc.change(t, exe, cacheDir)
			}
			second := New(cacheDir, minAge)
			got, err = second.SHA256(exe)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == nil {
				want = content('A')
			}
			if got != sum(want) {
				t.Errorf("second SHA256 = %s, want %s", got, sum(want))
			}
			if (second.hashed == 1) != tc.rehashed {
				t.Errorf("second cache read the file %d times, want rehashed=%v", second.hashed, tc.rehashed)
			}
		})
	}
}

func TestCacheFilePermissions(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	exe := filepath.Join(base, "exe")
	write(t, exe, content('A'))
	settle(t, exe)
	dir := filepath.Join(base, "cache", "pier")
	if _, err := New(dir, testMinAge).SHA256(exe); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, filepath.Join(dir, fileName): 0o600} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, info.Mode(), want)
		}
	}
}

func TestSmallFilesAreNotRemembered(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	exe := filepath.Join(base, "provider.sh")
	write(t, exe, []byte("#!/bin/sh\n"))
	settle(t, exe)
	cacheDir := filepath.Join(base, "cache")
	for range 2 {
		c := New(cacheDir, testMinAge)
		if got, err := c.SHA256(exe); err != nil || got != sum([]byte("#!/bin/sh\n")) || c.hashed != 1 {
			t.Errorf("SHA256 = %s, %v after %d reads", got, err, c.hashed)
		}
	}
	if _, err := os.Stat(filepath.Join(cacheDir, fileName)); !os.IsNotExist(err) {
		t.Errorf("cache file written for a small file: %v", err)
	}
}

func TestMissingFile(t *testing.T) {
	t.Parallel()
	if _, err := New(t.TempDir(), testMinAge).SHA256(filepath.Join(t.TempDir(), "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SHA256 of a missing file = %v, want not exist", err)
	}
}

func TestCacheKeepsTheNewestEntries(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	cacheDir := filepath.Join(base, "cache")
	var paths []string
	for i := range maxEntries + 3 {
		p := filepath.Join(base, "exe"+string(rune('a'+i%26))+string(rune('a'+i/26)))
		write(t, p, content(byte(i)))
		paths = append(paths, p)
	}
	settle(t, paths[len(paths)-1])
	c := New(cacheDir, testMinAge)
	for _, p := range paths {
		if _, err := c.SHA256(p); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(readCache(filepath.Join(cacheDir, fileName))); n != maxEntries {
		t.Errorf("cache holds %d entries, want %d", n, maxEntries)
	}
	last := New(cacheDir, testMinAge)
	if _, err := last.SHA256(paths[len(paths)-1]); err != nil || last.hashed != 0 {
		t.Errorf("newest entry: %v, %d reads", err, last.hashed)
	}
}

// TestLinksShareTheEntry: a file reached through another link, as from
// another deployment's directory, is not read again; a link moved to
// another file gives that file's hash.
func TestLinksShareTheEntry(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	exe, other := filepath.Join(base, "terraform-provider-x"), filepath.Join(base, "other")
	write(t, exe, content('A'))
	write(t, other, content('B'))
	settle(t, exe)
	settle(t, other)
	link := func(name, target string) string {
		dir := filepath.Join(base, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		l := filepath.Join(dir, "terraform-provider-x")
		_ = os.Remove(l)
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	cacheDir := filepath.Join(base, "cache")
	for i, step := range []struct {
		path     func() string // made when the step runs
		want     []byte
		rehashed bool
	}{
		{func() string { return link("one", exe) }, content('A'), true},
		{func() string { return link("two", exe) }, content('A'), false},
		{func() string { return exe }, content('A'), false},
		{func() string { return link("one", other) }, content('B'), true},
		{func() string { return link("three", other) }, content('B'), false},
	} {
		c := New(cacheDir, testMinAge) // a new command each time
		path := step.path()
		got, err := c.SHA256(path)
		if err != nil {
			t.Fatal(err)
		}
		if got != sum(step.want) || (c.hashed == 1) != step.rehashed {
			t.Errorf("step %d (%s): SHA256 = %s after %d reads, want %s, rehashed=%v", i, path, got, c.hashed, sum(step.want), step.rehashed)
		}
	}
}
