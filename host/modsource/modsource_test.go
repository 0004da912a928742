package modsource

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/internal/testneed"
)

func TestParseGit(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		raw  string
		want Git
		err  string
	}{
		"https with dir and ref": {raw: "git::https://example.com/mods.git//site?ref=v1.2", want: Git{URL: "https://example.com/mods.git", Dir: "site", Ref: "v1.2"}},
		"file url, no dir":       {raw: "git::file:///srv/mods.git?ref=main", want: Git{URL: "file:///srv/mods.git", Ref: "main"}},
		"local path, nested dir": {raw: "git::/srv/mods//a/b", want: Git{URL: "/srv/mods", Dir: "a/b"}},
		"unknown query":          {raw: "git::https://h/x.git?depth=1", err: `unknown query parameter "depth"`},
		"escaping dir":           {raw: "git::https://h/x.git//../etc", err: "must stay inside"},
		"option as ref":          {raw: "git::https://h/x.git?ref=--upload-pack=x", err: "may not start with -"},
		"password redacted":      {raw: "git::https://u:secret@h/x.git?depth=1", err: "https://u:REDACTED@h/x.git"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g, ok, err := ParseGit(tc.raw)
			if !ok {
				t.Fatal("not taken for a git source")
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "secret") {
					t.Fatalf("err = %v, want one containing %q and no secret", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, g); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if _, ok, _ := ParseGit("./modules/site"); ok {
		t.Error("a local path was taken for a git source")
	}
}

// gitRepo makes a repository with one module directory and returns it
// and a function that commits a new version of the module's file.
func gitRepo(t *testing.T) (string, func(content string) string) {
	t.Helper()
	testneed.Tool(t, "git")
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "--quiet", "--initial-branch=main")
	commit := func(content string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, "site"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "site", "main.pier.hcl"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		run("add", ".")
		run("commit", "--quiet", "-m", content)
		return run("rev-parse", "HEAD")
	}
	return dir, commit
}

func TestFetchPinsAndRefusesAMovedRef(t *testing.T) {
	t.Parallel()
	repo, commit := gitRepo(t)
	first := commit("# one\n")
	raw := "git::file://" + repo + "//site?ref=main"
	cache := t.TempDir()

	f := &Fetcher{Cache: cache}
	dir, ok, err := f.Fetch(raw)
	if !ok || err != nil {
		t.Fatalf("Fetch = %v, %v", ok, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "main.pier.hcl")); string(b) != "# one\n" {
		t.Fatalf("module file = %q", b)
	}
	if d := cmp.Diff(map[string]string{raw: first}, f.Resolved()); d != "" {
		t.Errorf("resolved (-want +got):\n%s", d)
	}
	lock := filepath.Join(t.TempDir(), ".pier.lock.hcl")
	if changed, err := Pin(lock, f.Resolved()); err != nil || len(changed) != 1 {
		t.Fatalf("Pin = %v, %v", changed, err)
	}
	if changed, err := Pin(lock, f.Resolved()); err != nil || changed != nil {
		t.Fatalf("second Pin = %v, %v; want no change", changed, err)
	}

	second := commit("# two\n")
	f = &Fetcher{Cache: cache, Pins: map[string]string{raw: first}}
	_, _, err = f.Fetch(raw)
	var moved *MovedError
	if !errors.As(err, &moved) || moved.Pinned != first || moved.Resolved != second {
		t.Fatalf("Fetch of a moved ref = %v, want a MovedError from %s to %s", err, first, second)
	}
	if !strings.Contains(err.Error(), first) || !strings.Contains(err.Error(), second) || !strings.Contains(err.Error(), "pier modules update") {
		t.Errorf("error %q names neither both commits nor the way out", err)
	}

	f = &Fetcher{Cache: cache, Pins: map[string]string{raw: first}, Upgrade: true}
	dir, _, err = f.Fetch(raw)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "main.pier.hcl")); string(b) != "# two\n" {
		t.Errorf("after upgrade, module file = %q", b)
	}
	if f.Resolved()[raw] != second {
		t.Errorf("resolved %s, want %s", f.Resolved()[raw], second)
	}
	if _, err := os.Stat(filepath.Join(dir, "..", ".git")); !os.IsNotExist(err) {
		t.Errorf("the cache keeps the repository's .git: %v", err)
	}
}

func TestFetchErrors(t *testing.T) {
	t.Parallel()
	repo, commit := gitRepo(t)
	commit("# one\n")
	cache := t.TempDir()
	for name, tc := range map[string]struct{ raw, want string }{
		"no such branch": {"git::file://" + repo + "//site?ref=nope", `has no branch or tag "nope"`},
		"no such dir":    {"git::file://" + repo + "//other?ref=main", `has no directory "other"`},
		"no repository":  {"git::file://" + repo + "-missing//site", "git ls-remote"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, _, err := (&Fetcher{Cache: cache}).Fetch(tc.raw)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
