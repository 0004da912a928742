package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pierhq/pier/host/filehash"
	"github.com/pierhq/pier/host/lockfile"
	"github.com/pierhq/pier/internal/testbin"
)

// A command remembers the SHA-256 of a provider executable in the user's
// cache ($XDG_CACHE_HOME/pier), and the next command takes it from there
// instead of reading the file again; a file written since, even with its
// size and mtime put back, is read again, by the lock check and by a
// saved plan's check alike.
func TestProviderHashIsCachedBetweenCommands(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("testdata/providers/journal.py")
	if err != nil {
		t.Fatal(err)
	}
	// Big enough to be remembered, as a Terraform provider binary is.
	src = append(src, "\n# "+strings.Repeat("x", filehash.MinSize)+"\n"...)
	d := newDeployment(t, map[string]string{"main.pier.hcl": strings.ReplaceAll(header, "JOURNAL_PROVIDER", "./journal.py") + `
resource "a" {
  provider = provider.journal
  type     = "echo"
  state    = resource.state
  inputs   = { value = "a" }
}
`})
	prov := filepath.Join(d.dir, "journal.py")
	testbin.WriteExecutable(t, prov, src, 0o755)
	cacheHome := t.TempDir()
	run := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := d.command(args...)
		cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+cacheHome)
		var out, errs strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errs
		err := cmd.Run()
		if err != nil && cmd.ProcessState == nil {
			t.Fatal(err)
		}
		return out.String(), errs.String(), cmd.ProcessState.ExitCode()
	}
	mustRun := func(args ...string) {
		t.Helper()
		if out, errs, code := run(args...); code != 0 {
			t.Fatalf("pier %v: exit %d\n%s\n%s", args, code, out, errs)
		}
	}

	// A file changed this instant is not remembered (see filehash): wait
	// for the clock until it may be.
	info, err := os.Stat(prov)
	if err != nil {
		t.Fatal(err)
	}
	st := info.Sys().(*syscall.Stat_t)
	time.Sleep(time.Until(time.Unix(st.Ctim.Unix()).Add(filehash.DefaultMinAge + 10*time.Millisecond)))

	mustRun("plan", "-out", "plan.json")
	cacheDir := filepath.Join(cacheHome, "pier")
	cacheFile := filepath.Join(cacheDir, "file-hashes.json")
	for path, want := range map[string]os.FileMode{cacheDir: os.ModeDir | 0o700, cacheFile: 0o600} {
		if info, err := os.Stat(path); err != nil || info.Mode() != want {
			t.Fatalf("%s: %v, %v; want mode %v", path, info.Mode(), err, want)
		}
	}
	want := "sha256:" + sha256Hex(src)
	mustRun("providers", "lock")
	lock, _, err := lockfile.Read(filepath.Join(d.dir, lockfile.Name))
	if err != nil {
		t.Fatal(err)
	}
	if got := lock.Entries["journal"].Hashes; len(got) != 1 || got[0] != want {
		t.Fatalf("locked %v, want %s", got, want)
	}

	// Plant another hash for the file as it is: a command that believes
	// it instead of reading the file has not read it.
	planted := "sha256:" + strings.Repeat("0", 64)
	rewriteCache(t, cacheFile, prov, strings.TrimPrefix(planted, "sha256:"))
	_, errs, code := run("plan")
	if code != 1 || !strings.Contains(errs, "actual "+planted) {
		t.Fatalf("plan with a planted cache entry: exit %d, want 1 naming %s:\n%s", code, planted, errs)
	}
	// The saved plan's check takes it from the same cache.
	if _, errs, code := run("apply", "--lock=off", "plan.json"); code != exitStalePlan || !strings.Contains(errs, "has changed since the plan was made") {
		t.Fatalf("apply of a saved plan with a planted cache entry: exit %d, want %d\n%s", code, exitStalePlan, errs)
	}

	// Rewrite one byte in place and put the mtime back: ctime moves, so
	// both checks read the file again, planted entry or not.
	f, err := os.OpenFile(prov, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{'y'}, int64(len(src)-2)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(prov, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	changed := append([]byte(nil), src...)
	changed[len(changed)-2] = 'y'
	_, errs, code = run("plan")
	if code != 1 || !strings.Contains(errs, "expected "+want) || !strings.Contains(errs, "actual sha256:"+sha256Hex(changed)) {
		t.Fatalf("plan with a rewritten provider: exit %d, want 1 with both hashes:\n%s", code, errs)
	}
	_, errs, code = run("apply", "--lock=off", "plan.json")
	if code != exitStalePlan || !regexp.MustCompile(`provider journal: its executable \S*journal.py has changed since the plan was made`).MatchString(errs) {
		t.Fatalf("apply of a saved plan with a rewritten provider: exit %d, want %d\n%s", code, exitStalePlan, errs)
	}
	if n := len(d.journal()); n != 0 {
		t.Errorf("the rewritten provider ran: %v", d.journal())
	}
}

// rewriteCache sets the hash the cache file holds for path.
func rewriteCache(t *testing.T, cacheFile, path, sum string) {
	t.Helper()
	data, err := os.ReadFile(cacheFile)
	if err != nil {
		t.Fatal(err)
	}
	var cf map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // nanosecond times do not fit a float64
	if err := dec.Decode(&cf); err != nil {
		t.Fatal(err)
	}
	files, _ := cf["files"].(map[string]any)
	e, _ := files[path].(map[string]any)
	if e == nil {
		t.Fatalf("cache has no entry for %s:\n%s", path, data)
	}
	e["sha256"] = sum
	if data, err = json.Marshal(cf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cacheFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func sha256Hex(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}
