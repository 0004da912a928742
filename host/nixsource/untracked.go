package nixsource

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// statusMissing matches the errors nix gives when a flake in a git
// repository needs a file git does not track: nix copies only tracked files
// to the store, so the file is missing there. Nix says "getting status of"
// for flake.nix (or a directory on the way to it) and "opening file" for a
// file the flake reads. It is compiled on first use.
var statusMissing = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:getting status of|opening file) '/nix/store/[0-9a-z]{32}-source(/[^']*)?': No such file or directory`)
})

// untracked turns nix's message about a file missing from the store copy
// of a local git flake into the advice the user needs, naming the file and
// the git add that fixes it. It returns "" when msg is about anything else
// or the file does not exist in the working tree either.
func (s *Source) untracked(msg string) string {
	if s.localDir == "" {
		return ""
	}
	m := statusMissing().FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	root := gitRoot(s.localDir)
	if root == "" {
		return ""
	}
	local := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(m[1], "/")))
	flakeFile := filepath.Join(s.localDir, "flake.nix")
	if local == s.localDir || local == flakeFile || strings.HasPrefix(flakeFile, local+string(filepath.Separator)) {
		// The flake.nix itself, or a directory on the way to it.
		return "flake.nix is not tracked by git: git add it (nix sees only the files git tracks; run git add " + relTo(root, flakeFile) + " in " + root + ")"
	}
	if _, err := os.Stat(local); err != nil {
		return ""
	}
	rel := relTo(root, local)
	return rel + " is not tracked by git: git add it (nix sees only the files git tracks; run git add " + rel + " in " + root + ")"
}

// gitRoot is the top of the git working tree holding dir, or "".
func gitRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

func relTo(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil {
		return rel
	}
	return path
}
