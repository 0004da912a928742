package nixsource

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// DefaultAttr is the flake attribute read when the reference names none.
const DefaultAttr = "nixops4"

// legacyAttr is the flake output NixOps4 read before 2026-01-25, tried
// when a flake has no DefaultAttr and the reference named no attribute.
const legacyAttr = "nixops4Deployments"

// installable turns a --flake reference (PATH#ATTR, path:…, git+file:…)
// into the installable nix eval takes. A relative local path resolves
// against the working directory now, so that a later chdir cannot change
// which flake a deployment means.
func installable(ref string) (string, error) {
	inst, _, err := parseRef(ref)
	return inst, err
}

// parseRef is [installable] that also returns the flake's local directory
// (where its flake.nix is, a ?dir= subdirectory included), or "" when the
// flake is not local.
func parseRef(ref string) (inst, dir string, err error) {
	if ref == "" {
		return "", "", fmt.Errorf("parse flake reference: empty")
	}
	flake, attr, hasAttr := strings.Cut(ref, "#")
	if !hasAttr || attr == "" {
		attr = DefaultAttr
	}
	if flake == "" {
		return "", "", fmt.Errorf("parse flake reference %q: no flake before #", ref)
	}
	if strings.Contains(attr, "#") {
		return "", "", fmt.Errorf("parse flake reference %q: more than one #", ref)
	}
	flake, dir, err = absFlake(flake)
	if err != nil {
		return "", "", fmt.Errorf("parse flake reference %q: %w", ref, err)
	}
	return flake + "#" + attr, dir, nil
}

// absFlake makes the path of a local flake reference absolute. Other
// references (github:…, indirect names) go to nix unchanged.
func absFlake(flake string) (ref, dir string, err error) {
	scheme, rest := "", flake
	switch {
	case strings.HasPrefix(flake, "path:"):
		scheme, rest = "path:", strings.TrimPrefix(flake, "path:")
	case strings.HasPrefix(flake, "git+file:"):
		scheme, rest = "git+file:", strings.TrimPrefix(flake, "git+file:")
		rest = strings.TrimPrefix(rest, "//")
	case strings.HasPrefix(flake, ".") || strings.HasPrefix(flake, "/"):
	default:
		return flake, "", nil
	}
	p, query, _ := strings.Cut(rest, "?")
	if p == "" {
		return "", "", fmt.Errorf("no path")
	}
	dir, err = filepath.Abs(p)
	if err != nil {
		return "", "", fmt.Errorf("resolve %s: %w", p, err)
	}
	ref = dir
	// ?dir=SUB names a flake in a subdirectory of the tree.
	if q, err := url.ParseQuery(query); err == nil && q.Get("dir") != "" {
		dir = filepath.Join(dir, filepath.FromSlash(q.Get("dir")))
	}
	if scheme == "git+file:" {
		ref = "//" + ref
	}
	if query != "" {
		ref += "?" + query
	}
	return scheme + ref, dir, nil
}
