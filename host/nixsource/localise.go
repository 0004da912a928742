package nixsource

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// storeSource matches a file inside a flake's source tree as Nix copied it
// to the store, as it appears in positions: /nix/store/HASH-source/REL.
var storeSource = regexp.MustCompile(`/nix/store/[0-9a-z]{32}-source/([^\s:'"]+)`)

// localise rewrites positions in the store copy of a local flake to the
// user's own files, so that messages point at what the user edits. A
// position is rewritten only when the local file has the same contents as
// the store copy; anything else (another flake's source) stays as Nix
// printed it.
func (s *Source) localise(text string) string {
	if s.localDir == "" || !strings.Contains(text, "/nix/store/") {
		return text
	}
	return storeSource.ReplaceAllStringFunc(text, func(m string) string {
		if local, ok := s.localised[m]; ok {
			return local
		}
		rel := storeSource.FindStringSubmatch(m)[1]
		local := filepath.Join(s.localDir, rel)
		stored, err1 := os.ReadFile(m)
		mine, err2 := os.ReadFile(local)
		if err1 != nil || err2 != nil || !bytes.Equal(stored, mine) {
			local = m
		}
		s.localised[m] = local
		return local
	})
}
