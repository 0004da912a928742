package tfcache

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

func TestParseSource(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in   string
		want string
		err  bool
	}{
		"two parts":   {in: "hashicorp/time", want: "registry.terraform.io/hashicorp/time"},
		"three parts": {in: "example.com/Acme/Thing", want: "example.com/acme/thing"},
		"one part":    {in: "time", err: true},
		"empty part":  {in: "hashicorp//time", err: true},
		"dot dot":     {in: "../x/y", err: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := ParseSource(tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("ParseSource(%q) error = %v, want error %v", tc.in, err, tc.err)
			}
			if err == nil && s.String() != tc.want {
				t.Errorf("ParseSource(%q) = %s, want %s", tc.in, s, tc.want)
			}
		})
	}
}

// mkPackage lays out a package the way terraform init leaves it in a
// plugin cache: HOST/NAMESPACE/TYPE/VERSION/OS_ARCH/terraform-provider-TYPE_vVERSION_x5.
func mkPackage(t testing.TB, root, src, version string) string {
	t.Helper()
	s, err := ParseSource(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, s.Host, s.Namespace, s.Type, version, Platform())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "terraform-provider-"+s.Type+"_v"+version+"_x5")
	testbin.WriteExecutable(t, exe, []byte("#!/bin/sh\n"), 0o755)
	return exe
}

func TestFindSearchesInOrder(t *testing.T) {
	t.Parallel()
	first, second := t.TempDir(), t.TempDir()
	mkPackage(t, second, "hashicorp/time", "0.14.2")
	want := mkPackage(t, first, "hashicorp/time", "0.14.2")
	mkPackage(t, first, "hashicorp/time", "0.13.0")
	s, _ := ParseSource("hashicorp/time")
	pkg, err := Dirs{filepath.Join(t.TempDir(), "missing"), first, second}.Find(s, "v0.14.2")
	if err != nil {
		t.Fatal(err)
	}
	if pkg.Executable != want || pkg.Dir != filepath.Dir(want) || pkg.Version != "0.14.2" {
		t.Errorf("Find = %+v, want executable %s", pkg, want)
	}
}

func TestFindNotFoundNamesWhereItLooked(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkPackage(t, root, "hashicorp/time", "0.13.0")
	s, _ := ParseSource("hashicorp/time")
	_, err := Dirs{root}.Find(s, "0.14.2")
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("Find error = %v, want NotFoundError", err)
	}
	if !strings.Contains(err.Error(), filepath.Join(root, "registry.terraform.io/hashicorp/time/0.14.2", Platform())) || !strings.Contains(err.Error(), "downloads nothing") {
		t.Errorf("error does not name the searched directory: %v", err)
	}
}

func TestFindIgnoresNonExecutables(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	exe := mkPackage(t, root, "hashicorp/time", "0.14.2")
	if err := os.Chmod(exe, 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := ParseSource("hashicorp/time")
	if _, err := (Dirs{root}).Find(s, "0.14.2"); err == nil {
		t.Fatal("Find accepted a package whose provider file is not executable")
	}
}

// TestDefaultDirsCache checks the layout of TF_PLUGIN_CACHE_DIR and
// ~/.terraform.d/plugins, as an existing Terraform user has them.
func TestDefaultDirsCache(t *testing.T) {
	cache, home := t.TempDir(), t.TempDir()
	t.Setenv("TF_PLUGIN_CACHE_DIR", cache)
	t.Setenv("HOME", home)
	want := mkPackage(t, cache, "hashicorp/time", "0.14.2")
	homeWant := mkPackage(t, filepath.Join(home, ".terraform.d", "plugins"), "hashicorp/random", "3.6.0")
	for src, exe := range map[string]string{"hashicorp/time": want, "hashicorp/random": homeWant} {
		s, _ := ParseSource(src)
		v := strings.Split(filepath.Base(exe), "_v")[1]
		pkg, err := DefaultDirs(t.TempDir()).Find(s, strings.TrimSuffix(v, "_x5"))
		if err != nil {
			t.Fatal(err)
		}
		if pkg.Executable != exe {
			t.Errorf("%s: found %s, want %s", src, pkg.Executable, exe)
		}
	}
}

// TestSelect: an exact version is found as such; constraints pick the
// newest installed version that meets them (compared as versions, so
// 0.14.10 beats 0.14.9), across directories, or the locked one while it
// is installed and meets them.
func TestSelect(t *testing.T) {
	t.Parallel()
	first, second := t.TempDir(), t.TempDir()
	for _, v := range []string{"0.13.1", "0.14.9", "0.14.10", "1.0.0", "1.1.0-beta1"} {
		mkPackage(t, first, "hashicorp/time", v)
	}
	mkPackage(t, second, "hashicorp/time", "0.14.11")
	// A version directory without this platform's executable is skipped.
	if err := os.MkdirAll(filepath.Join(first, "registry.terraform.io", "hashicorp", "time", "0.14.12", "plan9_mips"), 0o755); err != nil {
		t.Fatal(err)
	}
	dirs := Dirs{first, second}
	s, _ := ParseSource("hashicorp/time")
	tests := map[string]struct {
		arg, locked string
		want        string // "" means not found
	}{
		"exact":                      {arg: "0.14.9", want: "0.14.9"},
		"exact with v":               {arg: "v0.13.1", want: "0.13.1"},
		"exact not installed":        {arg: "0.14.8"},
		"pessimistic minor":          {arg: "~> 0.14", want: "0.14.11"},
		"pessimistic patch":          {arg: "~> 0.14.9", want: "0.14.11"},
		"at least":                   {arg: ">= 0.13", want: "1.0.0"},
		"range with exclusion":       {arg: ">= 0.13, < 1.0, != 0.14.11", want: "0.14.10"},
		"equals operator":            {arg: "= 0.14.9", want: "0.14.9"},
		"pre-release only if named":  {arg: ">= 1.1.0-beta1", want: "1.1.0-beta1"},
		"nothing matches":            {arg: "~> 2.0"},
		"locked wins":                {arg: "~> 0.14", locked: "0.14.9", want: "0.14.9"},
		"locked outside constraints": {arg: "~> 0.14", locked: "0.13.1", want: "0.14.11"},
		"locked not installed":       {arg: "~> 0.14", locked: "0.14.5", want: "0.14.11"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pkg, err := dirs.Select(s, tc.arg, tc.locked)
			if tc.want == "" {
				var nf *NotFoundError
				if !errors.As(err, &nf) {
					t.Fatalf("Select(%q) = %+v, %v; want a NotFoundError", tc.arg, pkg, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Select(%q): %v", tc.arg, err)
			}
			if pkg.Version != tc.want {
				t.Errorf("Select(%q, locked %q) = %s, want %s", tc.arg, tc.locked, pkg.Version, tc.want)
			}
		})
	}
	if _, err := dirs.Select(s, "~> banana", ""); err == nil || !strings.Contains(err.Error(), `version "~> banana" is neither a version nor constraints`) {
		t.Errorf("bad constraints: %v", err)
	}
}
