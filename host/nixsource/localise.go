package nixsource

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// storeSource matches a file inside a flake's source tree as Nix copied it
// to the store, as it appears in positions: /nix/store/HASH-source/REL.
// It is compiled on first use, not in every pier process's init.
var storeSource = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`/nix/store/[0-9a-z]{32}-source/([^\s:'"]+)`)
})

// localise rewrites positions in the store copy of a local flake to the
// user's own files, so that messages point at what the user edits. A
// position is rewritten only when the local file has the same contents as
// the store copy; anything else (another flake's source) stays as Nix
// printed it.
func (s *Source) localise(text string) string {
	if s.localDir == "" || !strings.Contains(text, "/nix/store/") {
		return text
	}
	return storeSource().ReplaceAllStringFunc(text, func(m string) string {
		if local, ok := s.localised[m]; ok {
			return local
		}
		s.localised[m] = m
		stored, err := os.ReadFile(m)
		if err != nil {
			return m
		}
		// For a flake in a subdirectory of a git repository the store copy
		// is the whole repository, so try the path relative to each level.
		rel := storeSource().FindStringSubmatch(m)[1]
		for {
			local := filepath.Join(s.localDir, rel)
			if mine, err := os.ReadFile(local); err == nil && bytes.Equal(stored, mine) {
				s.localised[m] = local
				return local
			}
			_, after, ok := strings.Cut(rel, "/")
			if !ok {
				return m
			}
			rel = after
		}
	})
}
