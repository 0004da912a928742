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
