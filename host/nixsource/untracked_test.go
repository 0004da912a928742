package nixsource

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testneed"
)

// TestUntrackedFiles evaluates flakes in git repositories with files git
// does not track, with the real nix and git: pier names the file and the
// git add that fixes it instead of nix's store path.
func TestUntrackedFiles(t *testing.T) {
	t.Parallel()
	needNix(t)
	testneed.Tool(t, "git")
	const reads = `{ outputs = { self }: { nixops4 = { _type = "nixops4Component"; rootFunction = _: { members = builtins.fromJSON (builtins.readFile ./members.json); }; }; }; }`
	tests := map[string]struct {
		files   map[string]string
		tracked []string
		ref     string
		want    string
	}{
		"flake.nix not added": {
			files:   map[string]string{"flake.nix": reads, "members.json": "{}", "README": ""},
			tracked: []string{"README"},
			ref:     ".",
			want:    "flake.nix is not tracked by git: git add it (nix sees only the files git tracks; run git add flake.nix in ROOT)",
		},
		"flake in a directory git does not know": {
			files:   map[string]string{"sub/flake.nix": reads, "sub/members.json": "{}", "README": ""},
			tracked: []string{"README"},
			ref:     "./sub",
			want:    "flake.nix is not tracked by git: git add it (nix sees only the files git tracks; run git add sub/flake.nix in ROOT)",
		},
		"a file the flake reads not added": {
			files:   map[string]string{"flake.nix": reads, "members.json": "{}"},
			tracked: []string{"flake.nix"},
			ref:     ".",
			want:    "members.json is not tracked by git: git add it (nix sees only the files git tracks; run git add members.json in ROOT)",
		},
		"a file missing from the working tree too": {
			files:   map[string]string{"flake.nix": reads},
			tracked: []string{"flake.nix"},
			ref:     ".",
			want:    "members.json': No such file or directory",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			for f, body := range tc.files {
				p := filepath.Join(root, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, args := range [][]string{{"init", "-q"}, append([]string{"add"}, tc.tracked...)} {
				cmd := exec.CommandContext(t.Context(), "git", args...)
				cmd.Dir = root
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			src, err := New(filepath.Join(root, tc.ref), Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = src.Resolve(t.Context(), nil)
			var ee *EvalError
			if !errors.As(err, &ee) {
				t.Fatalf("Resolve: err = %v, want an *EvalError", err)
			}
			want := strings.ReplaceAll(tc.want, "ROOT", root)
			if !strings.Contains(ee.Message, want) {
				t.Errorf("message = %q, want it to contain %q", ee.Message, want)
			}
			if strings.Contains(tc.want, "not tracked") && strings.Contains(ee.Message, "/nix/store/") {
				t.Errorf("message still shows nix's store path: %q", ee.Message)
			}
		})
	}
}
