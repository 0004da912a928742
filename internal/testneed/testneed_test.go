package testneed

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

type recorder struct{ skipped, failed string }

func (r *recorder) Helper()           {}
func (r *recorder) Skip(args ...any)  { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatal(args ...any) { r.failed = fmt.Sprint(args...) }

func TestMissing(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		strict            bool
		wantSkip, wantErr bool
	}{
		"go test skips":   {strict: false, wantSkip: true},
		"make test fails": {strict: true, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var r recorder
			missing(&r, "python3 is not on PATH", InstallHint("python3"), tc.strict)
			msg := r.skipped + r.failed
			if (r.skipped != "") != tc.wantSkip || (r.failed != "") != tc.wantErr {
				t.Fatalf("skipped %q, failed %q; want skip %v, fail %v", r.skipped, r.failed, tc.wantSkip, tc.wantErr)
			}
			if !strings.Contains(msg, "apt-get install python3 (.ci/setup.d/10-base.sh installs it)") {
				t.Errorf("message %q does not say how to install python3", msg)
			}
		})
	}
}

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// TestToolsListScriptsExist keeps .ci/tools.txt pointing at real setup
// scripts, and every interpreter the issue names in it.
func TestToolsListScriptsExist(t *testing.T) {
	t.Parallel()
	tools, err := readTools()
	if err != nil {
		t.Fatal(err)
	}
	for _, need := range []string{"python3", "perl", "node", "nix"} {
		if _, ok := tools[need]; !ok {
			t.Errorf(".ci/tools.txt lacks %s", need)
		}
	}
	for tool, in := range tools {
		if _, err := os.Stat(filepath.Join(moduleRoot(), in.script)); err != nil {
			t.Errorf("%s: %v", tool, err)
		}
	}
}

// TestNoSilentSkips fails on a test that skips by itself: a missing tool
// must go through this package, so that make test fails instead.
func TestNoSilentSkips(t *testing.T) {
	t.Parallel()
	skip := regexp.MustCompile(`\.Skip(f|Now)?\(`)
	allowed := map[string]bool{
		"internal/testneed/testneed.go":      true,
		"internal/testneed/testneed_test.go": true,
		"cmd/pier/scenario_test.go":          true, // adapts testscript to this package
	}
	root := moduleRoot()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && rel == filepath.Join("cmd", "pier", "testdata") {
			return checkScenarioSkips(t, path)
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "bin" || strings.HasPrefix(d.Name(), ".")) && rel != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") || allowed[filepath.ToSlash(rel)] {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if skip.MatchString(line) {
				t.Errorf("%s:%d skips by itself; use internal/testneed so make test fails instead: %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkScenarioSkips fails on a scenario that skips by itself (testscript's
// skip, or a [condition] skip): scenarios say need TOOL instead.
func checkScenarioSkips(t *testing.T, testdata string) error {
	t.Helper()
	skip := regexp.MustCompile(`^\s*(\[[^]]*\]\s*)*skip\b`)
	files, err := filepath.Glob(filepath.Join(testdata, "scenarios", "*.txtar"))
	if err != nil {
		return err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "-- ") {
				break // the archive's files
			}
			if skip.MatchString(line) {
				t.Errorf("%s:%d skips by itself; write need TOOL so make test fails instead: %s", filepath.Base(f), i+1, line)
			}
		}
	}
	return filepath.SkipDir
}
