package nixsource

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// needNix skips the test when nix is not installed.
func needNix(tb testing.TB) {
	tb.Helper()
	for _, bin := range []string{"nix", "nix-store"} {
		testneed.Tool(tb, bin)
	}
}

// flakesDir is the root testdata/flakes directory.
func flakesDir() string { return filepath.Join(testbin.ModuleRoot(), "testdata", "flakes") }

// copyFlake copies testdata/flakes/NAME and the shared test provider into a
// fresh directory, so that nix's lock files and the test's files stay out
// of the checkout. Placeholders in flake.nix are replaced from subst.
func copyFlake(tb testing.TB, name string, subst map[string]string) string {
	tb.Helper()
	dst := filepath.Join(tb.TempDir(), name)
	src := filepath.Join(flakesDir(), name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for k, v := range subst {
			data = []byte(strings.ReplaceAll(string(data), k, v))
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		tb.Fatal(err)
	}
	prov, err := os.ReadFile(filepath.Join(flakesDir(), "provider.py"))
	if err != nil {
		tb.Fatal(err)
	}
	testbin.WriteExecutable(tb, filepath.Join(dst, "provider.py"), prov, 0o755)
	return dst
}

// pierDir returns a directory holding only a copy of the pier binary, for
// flakes that take pier as a path: input (a copy, so the store path does
// not depend on the rest of the build directory).
func pierDir(tb testing.TB) string {
	tb.Helper()
	bin := testbin.Pier(tb)
	dir := tb.TempDir()
	data, err := os.ReadFile(bin)
	if err != nil {
		tb.Fatal(err)
	}
	testbin.WriteExecutable(tb, filepath.Join(dir, "pier"), data, 0o755)
	return dir
}

// snapView is the part of a snapshot the table tests compare.
type snapView struct {
	Ready   map[string]readyView
	Blocked map[string]blockedView
}

type readyView struct {
	Type      string
	Inputs    map[string]any
	State     string
	DependsOn []string
}

type blockedView struct {
	WaitsOn    []string
	Structural bool
	// Unknown lists the inputs still unknown, for a partly known resource.
	Unknown []string
}

func strs(as []source.Address) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.String())
	}
	return out
}

func view(s *source.Snapshot) snapView {
	v := snapView{Ready: map[string]readyView{}, Blocked: map[string]blockedView{}}
	for _, r := range s.Ready {
		rv := readyView{Type: r.Type, Inputs: r.Inputs, DependsOn: strs(r.DependsOn)}
		if r.State != nil {
			rv.State = r.State.String()
		}
		v.Ready[r.Address.String()] = rv
	}
	for _, b := range s.Blocked {
		bv := blockedView{WaitsOn: strs(b.WaitsOn), Structural: b.Structural}
		if b.Resource != nil {
			for k, in := range b.Resource.Inputs {
				if source.IsUnknown(in) {
					bv.Unknown = append(bv.Unknown, k)
				}
			}
			slices.Sort(bv.Unknown)
		}
		v.Blocked[b.Address.String()] = bv
	}
	return v
}
