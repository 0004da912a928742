package lockfile

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/dirhash"

	"github.com/pierhq/pier/host/tfcache"
	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// There is no terraform or tofu binary here, and the Go module proxy
// serves terraform-provider-time's source, not HashiCorp's release zips,
// so no lock file Terraform wrote for this exact package can be recorded.
// pier's h1: is instead checked against Terraform's documented scheme in
// two ways:
//
//   - testdata/h1.txt is the hash of the package directory under
//     testdata/h1 (Terraform's cache layout, stand-in file contents),
//     computed by testdata/h1.py, a Python implementation of the scheme
//     that shares no code with pier;
//   - for the real terraform-provider-time v0.14.2 binary that
//     `make tfproviders` builds, laid out as a Terraform plugin cache
//     holds it, pier's hash equals h1.py's, and equals dirhash.HashZip of
//     the package zipped the way the registry ships it, which is the h1:
//     Terraform records when it installs from the zip.

func TestPackageHashRecordedFixture(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile("testdata/h1.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, err := PackageHash("testdata/h1/registry.terraform.io/hashicorp/time/0.14.2/linux_amd64")
	if err != nil {
		t.Fatal(err)
	}
	if got != strings.TrimSpace(string(want)) {
		t.Errorf("PackageHash = %s, recorded %s", got, want)
	}
}

func TestPackageHashTerraformProviderTime(t *testing.T) {
	t.Parallel()
	exe := filepath.Join(testbin.ModuleRoot(), "bin", "tfproviders", "terraform-provider-time")
	testneed.File(t, exe, "run make tfproviders (.ci/setup.d/30-tfproviders.sh)")
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	python := testneed.Tool(t, "python3")
	cache := t.TempDir()
	pkgDir := filepath.Join(cache, "registry.terraform.io/hashicorp/time/0.14.2", tfcache.Platform())
	writeExe(t, filepath.Join(pkgDir, "terraform-provider-time_v0.14.2_x5"), string(bin))
	src, _ := tfcache.ParseSource("hashicorp/time")
	pkg, err := tfcache.Dirs{cache}.Find(src, "0.14.2")
	if err != nil {
		t.Fatal(err)
	}
	got, err := PackageHash(pkg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, "testdata/h1.py", pkgDir).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); got != want {
		t.Errorf("pier h1 = %s, documented scheme (h1.py) = %s", got, want)
	}
	zipPath := filepath.Join(t.TempDir(), "terraform-provider-time_0.14.2_"+tfcache.Platform()+".zip")
	zf, err := os.Create(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	w, err := zw.Create("terraform-provider-time_v0.14.2_x5")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(bin); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}
	fromZip, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	if fromZip != got {
		t.Errorf("h1 of the unpacked package %s != h1 of its zip %s", got, fromZip)
	}
}

// PackageHash computes Hash1 itself, to take each file's hash from
// filehash; it must agree with dirhash's own.
func TestPackageHashIsDirhashHash1(t *testing.T) {
	t.Parallel()
	nested := t.TempDir()
	for name, size := range map[string]int{"terraform-provider-x_v1.0.0": 200 << 10, "LICENSE": 10, "docs/README.md": 5, "docs/a/b": 0} {
		p := filepath.Join(nested, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeExe(t, p, strings.Repeat(name, size/len(name)+1))
	}
	tests := map[string]string{
		"recorded fixture": "testdata/h1/registry.terraform.io/hashicorp/time/0.14.2/linux_amd64",
		"nested files":     nested,
	}
	for name, dir := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := dirhash.HashDir(dir, "", dirhash.Hash1)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // the second time from the cache, when it may
				if got, err := PackageHash(dir); err != nil || got != want {
					t.Errorf("PackageHash = %s, %v; dirhash.HashDir = %s", got, err, want)
				}
			}
		})
	}
}
