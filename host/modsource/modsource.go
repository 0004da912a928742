// Package modsource fetches module sources that are git repositories,
// git::URL//DIR?ref=REF, with the git CLI into a per-user cache, and
// pins each to the commit its ref resolved to (the module blocks of
// .pier.lock.hcl, see host/lockfile).
//
// It knows nothing of the deployment language: host/hclsource calls
// [Fetcher.Fetch] through its Options.FetchModule for every source that
// is not a local path. Start reading at [Fetcher].
package modsource

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pierhq/pier/host/lockfile"
)

// Prefix starts a git module source.
const Prefix = "git::"

// Git is a parsed git module source.
type Git struct {
	// URL is the repository, as git takes it (https://…, ssh://…,
	// file:///…, a local path).
	URL string
	// Dir is the directory within the repository (after //); "" is its
	// root.
	Dir string
	// Ref is a branch, tag or commit; "" is the repository's HEAD.
	Ref string
}

// ParseGit parses git::URL//DIR?ref=REF. ok is false when raw is not a
// git source at all.
func ParseGit(raw string) (g Git, ok bool, err error) {
	rest, ok := strings.CutPrefix(raw, Prefix)
	if !ok {
		return Git{}, false, nil
	}
	if i := strings.LastIndex(rest, "?"); i >= 0 {
		q, err := url.ParseQuery(rest[i+1:])
		if err != nil {
			return Git{}, true, fmt.Errorf("git source %s: query: %w", redact(raw), err)
		}
		for k := range q {
			if k != "ref" {
				return Git{}, true, fmt.Errorf("git source %s: unknown query parameter %q (only ref is known)", redact(raw), k)
			}
		}
		g.Ref = q.Get("ref")
		rest = rest[:i]
	}
	// The subdirectory follows the first // after the scheme's.
	search := rest
	offset := 0
	if j := strings.Index(rest, "://"); j >= 0 {
		offset = j + 3
		search = rest[offset:]
	}
	if j := strings.Index(search, "//"); j >= 0 {
		g.Dir = strings.Trim(search[j+2:], "/")
		rest = rest[:offset+j]
	}
	g.URL = rest
	if g.URL == "" {
		return Git{}, true, fmt.Errorf("git source %s: no repository URL", redact(raw))
	}
	if strings.HasPrefix(g.Ref, "-") || strings.HasPrefix(g.URL, "-") {
		return Git{}, true, fmt.Errorf("git source %s: a URL or ref may not start with -", redact(raw))
	}
	if g.Dir != "" && (filepath.IsAbs(g.Dir) || slices.Contains(strings.Split(g.Dir, "/"), "..")) {
		return Git{}, true, fmt.Errorf("git source %s: the directory %q must stay inside the repository", redact(raw), g.Dir)
	}
	return g, true, nil
}

// MovedError is a pinned git source whose ref now resolves to another
// commit: the plan refuses until the pin is moved.
type MovedError struct {
	Source   string // as the module block writes it (credentials redacted)
	Ref      string
	Pinned   string
	Resolved string
}

func (e *MovedError) Error() string {
	ref := e.Ref
	if ref == "" {
		ref = "HEAD"
	}
	return fmt.Sprintf("%s: ref %s has moved from commit %s, pinned in .pier.lock.hcl, to %s; run pier modules update (or --upgrade) to use the new commit", e.Source, ref, e.Pinned, e.Resolved)
}

// Fetcher resolves git sources for one load of a deployment. It is used
// from one goroutine at a time.
type Fetcher struct {
	// Cache is the cache directory; "" means [DefaultCache].
	Cache string
	// Git is the git executable; "" means "git" from PATH.
	Git string
	// Pins are the commits the lock file pins sources to.
	Pins map[string]string
	// Upgrade moves pins to the commits the refs resolve to now, instead
	// of refusing a moved ref.
	Upgrade bool
	// Timeout bounds each git command: a network fetch that hangs must
	// not hang pier. Zero means DefaultTimeout.
	Timeout time.Duration

	// resolved are the commits this load used, by source.
	resolved map[string]string
}

// DefaultTimeout bounds one git command: a clone of a module repository
// over a slow link takes seconds, not minutes.
const DefaultTimeout = 5 * time.Minute

// DefaultCache is the per-user module cache: $XDG_CACHE_HOME/pier/modules
// (~/.cache/pier/modules by default).
func DefaultCache() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("module cache: %w", err)
	}
	return filepath.Join(dir, "pier", "modules"), nil
}

// Fetch resolves raw to a directory; handled is false for sources that
// are not git sources. The commit it used is in [Fetcher.Resolved].
func (f *Fetcher) Fetch(raw string) (dir string, handled bool, err error) {
	g, ok, err := ParseGit(raw)
	if !ok || err != nil {
		return "", ok, err
	}
	if f.Cache == "" {
		if f.Cache, err = DefaultCache(); err != nil {
			return "", true, err
		}
	}
	commit, ok := f.resolved[raw]
	if !ok {
		commit, err = f.resolve(raw, g)
		if err != nil {
			return "", true, err
		}
	}
	root, err := f.checkout(g, commit)
	if err != nil {
		return "", true, fmt.Errorf("fetch %s at %s: %w", redact(raw), commit, err)
	}
	if f.resolved == nil {
		f.resolved = map[string]string{}
	}
	f.resolved[raw] = commit
	dir = filepath.Join(root, filepath.FromSlash(g.Dir))
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", true, fmt.Errorf("%s: commit %s has no directory %q", redact(raw), commit, g.Dir)
	}
	return dir, true, nil
}

// Redact removes the password from URLs in a source, for messages.
func Redact(source string) string { return redact(source) }

// Resolved returns the commits the sources fetched so far resolved to,
// for the lock file.
func (f *Fetcher) Resolved() map[string]string { return f.resolved }

// resolve finds the commit raw's ref names and checks it against the
// pin.
func (f *Fetcher) resolve(raw string, g Git) (string, error) {
	commit := ""
	if isCommit(g.Ref) {
		commit = g.Ref
	} else {
		out, err := f.git(context.Background(), "", append([]string{"ls-remote", "--", g.URL}, refPatterns(g.Ref)...)...)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", redact(raw), err)
		}
		if commit = pickRef(string(out), g.Ref); commit == "" {
			ref := g.Ref
			if ref == "" {
				ref = "HEAD"
			}
			return "", fmt.Errorf("resolve %s: the repository has no branch or tag %q", redact(raw), ref)
		}
	}
	if pinned, ok := f.Pins[raw]; ok && pinned != commit && !f.Upgrade {
		return "", &MovedError{Source: redact(raw), Ref: g.Ref, Pinned: pinned, Resolved: commit}
	}
	return commit, nil
}

func refPatterns(ref string) []string {
	if ref == "" {
		return []string{"HEAD"}
	}
	return []string{ref, "refs/heads/" + ref, "refs/tags/" + ref, "refs/tags/" + ref + "^{}"}
}

// pickRef chooses from git ls-remote output the commit ref names: a
// tag's peeled commit before the tag object, a tag before a branch, as
// git checkout would resolve it.
func pickRef(out, ref string) string {
	found := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		sha, name, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if ok {
			found[name] = sha
		}
	}
	if ref == "" {
		return found["HEAD"]
	}
	for _, name := range []string{"refs/tags/" + ref + "^{}", "refs/tags/" + ref, "refs/heads/" + ref, ref} {
		if sha, ok := found[name]; ok {
			return sha
		}
	}
	return ""
}

func isCommit(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}

// checkout makes the cache hold the repository at commit and returns its
// directory. A checkout is made beside its final name and renamed into
// place, so a crash or a concurrent pier never leaves a partial one
// where it would be used.
func (f *Fetcher) checkout(g Git, commit string) (string, error) {
	sum := sha256.Sum256([]byte(g.URL))
	final := filepath.Join(f.Cache, hex.EncodeToString(sum[:8]), commit)
	if fi, err := os.Stat(final); err == nil && fi.IsDir() {
		return final, nil
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o700); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(final), ".fetch-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	ctx := context.Background()
	if _, err := f.git(ctx, "", "clone", "--quiet", "--no-checkout", "--", g.URL, tmp); err != nil {
		return "", err
	}
	if _, err := f.git(ctx, tmp, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit, "--"); err != nil {
		return "", err
	}
	if err := os.RemoveAll(filepath.Join(tmp, ".git")); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, final); err != nil {
		if fi, serr := os.Stat(final); serr == nil && fi.IsDir() {
			return final, nil // another pier put the same commit there first
		}
		return "", err
	}
	return final, nil
}

// git runs one git command and returns its stdout; an error carries its
// stderr's last line, with credentials in URLs redacted.
func (f *Fetcher) git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	timeout := f.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	bin := f.Git
	if bin == "" {
		bin = "git"
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	// Never ask for a password on the terminal: pier may run unattended.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("git %s: no answer after %s", args[0], timeout)
		}
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndex(msg, "\n"); i >= 0 {
			msg = msg[i+1:]
		}
		return nil, fmt.Errorf("git %s: %w: %s", args[0], err, redact(msg))
	}
	return stdout.Bytes(), nil
}

// redact removes the password of URLs in s, which a git source or git's
// messages may carry (https://user:token@host/…).
func redact(s string) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	at := strings.Index(s[i+3:], "@")
	slash := strings.IndexAny(s[i+3:], "/ ")
	if at < 0 || (slash >= 0 && slash < at) {
		return s
	}
	user := s[i+3 : i+3+at]
	if name, _, ok := strings.Cut(user, ":"); ok {
		user = name + ":REDACTED"
	}
	return s[:i+3] + user + redact(s[i+3+at:])
}

// Pin records in the lock file at lockPath the commits a load resolved,
// keeping everything else in it, and returns the sources whose pin it
// added or moved, in order. It writes nothing when no pin changed.
func Pin(lockPath string, resolved map[string]string) ([]string, error) {
	lock, _, err := lockfile.Read(lockPath)
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, src := range slices.Sorted(maps.Keys(resolved)) {
		if lock.Modules[src] != resolved[src] {
			lock.Modules[src] = resolved[src]
			changed = append(changed, src)
		}
	}
	if len(changed) == 0 {
		return nil, nil
	}
	return changed, lock.Write(lockPath)
}
