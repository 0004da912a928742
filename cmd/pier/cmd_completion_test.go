package main

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// TestBashCompletion loads pier completion bash into a real bash and
// completes words with it, as a user's Tab would.
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	bash := testneed.Tool(t, "bash")
	pier := testbin.Pier(t)
	tests := map[string]struct {
		words []string
		want  []string
	}{
		"command":       {[]string{"pl"}, []string{"plan"}},
		"subcommand":    {[]string{"state", "l"}, []string{"list"}},
		"flag":          {[]string{"plan", "--detailed"}, []string{"--detailed-exitcode"}},
		"several":       {[]string{"pro"}, []string{"provider", "providers"}},
		"nothing close": {[]string{"zzz"}, []string{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			words := append([]string{filepath.Base(pier)}, tc.words...)
			script := `eval "$("$PIER" completion bash)"
COMP_WORDS=(` + shellWords(words) + `)
COMP_CWORD=` + strconv.Itoa(len(words)-1) + `
_pier_complete
printf '%s\n' "${COMPREPLY[@]}"`
			cmd := exec.Command(bash, "--norc", "-c", script)
			cmd.Env = []string{"PIER=" + pier, "PATH=" + filepath.Dir(pier) + ":/usr/bin:/bin"}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			got := strings.Fields(string(out))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("completing %q (-want +got)\n%s", tc.words, diff)
			}
		})
	}
}

func shellWords(ws []string) string {
	var q []string
	for _, w := range ws {
		q = append(q, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
	}
	return strings.Join(q, " ")
}
