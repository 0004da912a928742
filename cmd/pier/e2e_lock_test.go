package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/host/tfcache"
	"github.com/pierhq/pier/internal/testbin"
)

// lockedDeployment is a deployment whose provider is a copy of the
// journal provider in its own directory, so the test may change it.
func lockedDeployment(t *testing.T) (*deployment, string) {
	t.Helper()
	d := newDeployment(t, nil)
	src, err := os.ReadFile("testdata/providers/journal.py")
	if err != nil {
		t.Fatal(err)
	}
	prov := filepath.Join(d.dir, "providers", "journal.py")
	if err := os.MkdirAll(filepath.Dir(prov), 0o755); err != nil {
		t.Fatal(err)
	}
	testbin.WriteExecutable(t, prov, src, 0o755)
	d.write(map[string]string{"main.pier.hcl": `
provider "local" {
  builtin = "local"
}
provider "j" {
  executable = "providers/journal.py"
  operations = ["destroy"]
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "a" {
  provider = provider.j
  type     = "echo"
  state    = resource.state
  inputs   = { value = "one" }
}
`})
	return d, prov
}

func TestLockRefusesAChangedProvider(t *testing.T) {
	t.Parallel()
	d, prov := lockedDeployment(t)
	// No lock file: one warning, and the plan runs.
	_, stderr, code := d.run("plan")
	if code != 0 || !strings.Contains(stderr, "there is no .pier.lock.hcl, so providers j run unchecked") {
		t.Fatalf("plan without a lock file: exit %d, stderr:\n%s", code, stderr)
	}
	if _, stderr, code := d.run("plan", "--lock=strict"); code != 1 || !strings.Contains(stderr, "provider j is not in .pier.lock.hcl") {
		t.Fatalf("strict plan without a lock: exit %d, stderr:\n%s", code, stderr)
	}
	d.mustRun("providers", "lock")
	lock, ok, err := lockfile.Read(filepath.Join(d.dir, lockfile.Name))
	if err != nil || !ok {
		t.Fatalf("read lock: %v (exists %v)", err, ok)
	}
	expected := lock.Entries["j"].Hashes[0]
	if _, stderr, code := d.run("apply", "--lock=strict"); code != 0 || strings.Contains(stderr, "warning") {
		t.Fatalf("apply with a matching lock: exit %d, stderr:\n%s", code, stderr)
	}
	out, _, _ := d.run("providers")
	if !strings.Contains(out, "providers/journal.py") || !strings.Contains(out, "locked") {
		t.Errorf("pier providers:\n%s", out)
	}

	testbin.AppendExecutable(t, prov, []byte("# changed after review\n"))
	actual, _ := lockfile.FileHash(prov)
	for _, cmd := range [][]string{{"plan"}, {"apply"}, {"destroy", "--yes"}} {
		_, stderr, code := d.run(cmd...)
		if code != 1 {
			t.Errorf("%v with a changed provider: exit %d, want 1", cmd, code)
		}
		for _, want := range []string{"provider j does not match", "expected " + expected, "actual " + actual} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", cmd, want, stderr)
			}
		}
	}
	if j := d.journal(); len(j) != 1 {
		t.Errorf("the changed provider ran: journal %v", j)
	}
	if _, stderr, code := d.run("providers", "lock"); code != 1 || !strings.Contains(stderr, "does not match") {
		t.Errorf("providers lock without --upgrade: exit %d\n%s", code, stderr)
	}
	d.mustRun("providers", "lock", "--upgrade")
	d.mustRun("destroy", "--yes", "--lock=strict")
}

// TestSourceVersionFromPluginCache declares terraform-provider-time by
// source and version and lets pier find it in a TF_PLUGIN_CACHE_DIR laid
// out as terraform init leaves it.
func TestSourceVersionFromPluginCache(t *testing.T) {
	t.Parallel()
	bin, err := os.ReadFile(tfProviderForTest(t, "terraform-provider-time"))
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	pkgDir := filepath.Join(cache, "registry.terraform.io", "hashicorp", "time", "0.14.2", tfcache.Platform())
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	testbin.WriteExecutable(t, filepath.Join(pkgDir, "terraform-provider-time_v0.14.2_x5"), bin, 0o755)
	d := newDeployment(t, map[string]string{"main.pier.hcl": `
provider "local" {
  builtin = "local"
}
provider "time" {
  source  = "hashicorp/time"
  version = "0.14.2"
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "t" {
  provider = provider.time
  type     = "time_static"
  state    = resource.state
  inputs   = { triggers = { v = "1" } }
}
`})
	env := func(args ...string) (string, string, int) {
		cmd := d.command(args...)
		cmd.Env = append(cmd.Env, "TF_PLUGIN_CACHE_DIR="+cache, "HOME="+d.dir)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if err != nil {
			code = cmd.ProcessState.ExitCode()
		}
		return out.String(), errb.String(), code
	}
	if out, stderr, code := env("providers"); code != 0 || !strings.Contains(out, filepath.Join(pkgDir, "terraform-provider-time_v0.14.2_x5")) {
		t.Fatalf("providers: exit %d\n%s\n%s", code, out, stderr)
	}
	if _, stderr, code := env("providers", "lock"); code != 0 {
		t.Fatalf("providers lock: %s", stderr)
	}
	want, err := lockfile.PackageHash(pkgDir)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(d.dir, lockfile.Name))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `provider "registry.terraform.io/hashicorp/time" {`) ||
		!strings.Contains(string(text), `version = "0.14.2"`) || !strings.Contains(string(text), want) {
		t.Errorf("lock file:\n%s\nwant h1 %s", text, want)
	}
	if _, stderr, code := env("apply", "--lock=strict"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, stderr)
	}
	// Another version is not in the cache: a clear error, nothing fetched.
	d.write(map[string]string{"main.pier.hcl": strings.Replace(string(mustRead(t, filepath.Join(d.dir, "main.pier.hcl"))), `"0.14.2"`, `"0.15.0"`, 1)})
	if _, stderr, code := env("plan"); code != 1 || !strings.Contains(stderr, "Provider package not found") || !strings.Contains(stderr, "downloads nothing") {
		t.Errorf("plan with a version not in the cache: exit %d\n%s", code, stderr)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVersionConstraints declares terraform-provider-time by source and
// version constraints, as Terraform allows: the newest installed version
// that meets them runs (0.14.10 over 0.14.9: versions, not strings), the
// lock file records it with the constraints, and a newer matching version
// installed later does not replace the locked one. Constraints the lock
// file already holds stay when the declaration gives an exact version.
// The versions are copies of the real v0.14.2 binary under other names.
func TestVersionConstraints(t *testing.T) {
	t.Parallel()
	bin, err := os.ReadFile(tfProviderForTest(t, "terraform-provider-time"))
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	install := func(version string) string {
		dir := filepath.Join(cache, "registry.terraform.io", "hashicorp", "time", version, tfcache.Platform())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(dir, "terraform-provider-time_v"+version+"_x5")
		testbin.WriteExecutable(t, exe, bin, 0o755)
		return exe
	}
	for _, v := range []string{"0.13.1", "0.14.9", "0.14.10", "1.0.0"} {
		install(v)
	}
	deployment := func(version string) map[string]string {
		return map[string]string{"main.pier.hcl": fmt.Sprintf(`
provider "local" { builtin = "local" }
provider "time" {
  source  = "hashicorp/time"
  version = %q
}
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
resource "t" {
  provider = provider.time
  type     = "time_static"
  state    = resource.state
  inputs   = { triggers = { v = "1" } }
}
`, version)}
	}
	d := newDeployment(t, deployment("~> 0.14"))
	env := func(args ...string) (string, string, int) {
		cmd := d.command(args...)
		cmd.Env = append(cmd.Env, "TF_PLUGIN_CACHE_DIR="+cache, "HOME="+d.dir)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if err != nil {
			code = cmd.ProcessState.ExitCode()
		}
		return out.String(), errb.String(), code
	}
	lockText := func() string { return string(mustRead(t, filepath.Join(d.dir, lockfile.Name))) }
	if out, stderr, code := env("providers"); code != 0 || !strings.Contains(out, "0.14.10/"+tfcache.Platform()) {
		t.Fatalf("providers with ~> 0.14: exit %d, want 0.14.10\n%s\n%s", code, out, stderr)
	}
	if _, stderr, code := env("providers", "lock"); code != 0 {
		t.Fatalf("providers lock: %s", stderr)
	}
	if text := lockText(); !strings.Contains(text, `version     = "0.14.10"`) || !strings.Contains(text, `constraints = "~> 0.14"`) {
		t.Errorf("lock file lacks the version and constraints:\n%s", text)
	}
	if _, stderr, code := env("apply", "--lock=strict"); code != 0 {
		t.Fatalf("apply: exit %d\n%s", code, stderr)
	}

	// A newer matching version installed later: the locked one still runs.
	install("0.14.11")
	if out, stderr, code := env("providers"); code != 0 || !strings.Contains(out, "0.14.10/") || !strings.Contains(out, "locked") {
		t.Errorf("providers after 0.14.11 was installed: exit %d, want the locked 0.14.10\n%s\n%s", code, out, stderr)
	}
	if _, stderr, code := env("plan", "--lock=strict"); code != 0 {
		t.Errorf("plan after 0.14.11 was installed: exit %d\n%s", code, stderr)
	}

	// Constraints the locked version does not meet choose another, which
	// the lock refuses until it is upgraded.
	d.write(deployment(">= 0.13, < 1.0, != 0.14.10"))
	if _, stderr, code := env("plan", "--lock=strict"); code != 1 || !strings.Contains(stderr, "version 0.14.10") || !strings.Contains(stderr, "version 0.14.11") {
		t.Errorf("plan with constraints that exclude the locked version: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := env("providers", "lock", "--upgrade"); code != 0 {
		t.Fatalf("providers lock --upgrade: %s", stderr)
	}
	if text := lockText(); !strings.Contains(text, `version     = "0.14.11"`) || !strings.Contains(text, `constraints = ">= 0.13, < 1.0, != 0.14.10"`) {
		t.Errorf("upgraded lock file:\n%s", text)
	}

	// An exact version keeps the constraints already recorded (Terraform's
	// lock file has them; so may one edited by hand).
	d.write(deployment("0.14.11"))
	if _, stderr, code := env("providers", "lock"); code != 0 {
		t.Fatalf("providers lock with an exact version: %s", stderr)
	}
	if text := lockText(); !strings.Contains(text, `constraints = ">= 0.13, < 1.0, != 0.14.10"`) {
		t.Errorf("providers lock dropped the recorded constraints:\n%s", text)
	}

	d.write(deployment("~> 2.0"))
	if _, stderr, code := env("plan"); code != 1 || !strings.Contains(stderr, "Provider package not found") || !strings.Contains(stderr, "matching ~> 2.0") {
		t.Errorf("plan with constraints nothing installed meets: exit %d\n%s", code, stderr)
	}
}
