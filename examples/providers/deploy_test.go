package providers

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierhq/pier/internal/testbin"
	"github.com/pierhq/pier/internal/testneed"
)

// deployment is a small deployment using one example provider, applied,
// changed and applied again, then destroyed.
type deployment struct {
	needs  []string
	exe    func(t *testing.T) string
	hcl    string // with EXE for the provider's path and VALUE for the changing input
	first  string // VALUE of the first apply
	second string // VALUE of the second apply
	// verify checks the deployment directory after an apply with value.
	verify func(t *testing.T, dir, value string)
	// gone checks the directory after pier destroy; nil when the provider
	// has nothing to destroy.
	gone func(t *testing.T, dir string)
}

const stateBlocks = `
provider "local" { builtin = "local" }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}
`

func fileHolds(path string) func(t *testing.T, dir, value string) {
	return func(t *testing.T, dir, value string) {
		t.Helper()
		got, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil || string(got) != value {
			t.Errorf("%s holds %q (%v), want %q", path, got, err, value)
		}
	}
}

func absent(path string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		if _, err := os.Stat(filepath.Join(dir, path)); !os.IsNotExist(err) {
			t.Errorf("%s still exists after destroy (%v)", path, err)
		}
	}
}

var deployments = map[string]deployment{
	"python-kv": {
		needs: []string{"python3"},
		exe:   script("python-kv/provider.py"),
		hcl: `provider "kv" {
  executable = "EXE"
  operations = ["destroy"]
}` + stateBlocks + `
resource "greeting" {
  provider = provider.kv
  type     = "kv"
  state    = resource.state
  inputs   = { dir = "kv", key = "hello", value = "VALUE" }
}`,
		first: "world", second: "there",
		verify: fileHolds("kv/hello"),
		gone:   absent("kv/hello"),
	},
	"sh-file": {
		needs: []string{"jq"},
		exe:   script("sh-file/provider.sh"),
		hcl: `provider "file" { executable = "EXE" }
resource "hello" {
  provider = provider.file
  type     = "file"
  inputs   = { path = "hello.txt", content = "VALUE" }
}`,
		first: "hello", second: "bye",
		verify: fileHolds("hello.txt"),
	},
	"node-counter": {
		needs: []string{"node"},
		exe:   script("node-counter/provider.js"),
		hcl: `provider "counter" { executable = "EXE" }` + stateBlocks + `
resource "visits" {
  provider = provider.counter
  type     = "counter"
  state    = resource.state
  inputs   = { name = "visits", start = 40, step = VALUE }
}`,
		// Create records start=40; the update adds step=2 to the
		// recorded count, whatever step was before.
		first: "1", second: "2",
		verify: func(t *testing.T, dir, value string) {
			t.Helper()
			want := map[string]string{"1": `"count": 40`, "2": `"count": 42`}[value]
			state, err := os.ReadFile(filepath.Join(dir, "state.json"))
			if err != nil {
				t.Fatal(err)
			}
			// The last event records the newest outputs.
			lines := strings.Split(strings.TrimSpace(string(state)), "\n")
			last := strings.ReplaceAll(lines[len(lines)-1], `"count":`, `"count": `)
			if !strings.Contains(last, want) {
				t.Errorf("last state event %s lacks %s", lines[len(lines)-1], want)
			}
		},
	},
	"go-dir": {
		needs: []string{"go"},
		exe:   buildGoDir,
		hcl: `provider "dir" {
  executable = "EXE"
  operations = ["destroy"]
}` + stateBlocks + `
resource "out" {
  provider = provider.dir
  type     = "dir"
  state    = resource.state
  inputs   = { path = "out", mode = "VALUE" }
}`,
		first: "0700", second: "0750",
		verify: func(t *testing.T, dir, value string) {
			t.Helper()
			fi, err := os.Stat(filepath.Join(dir, "out"))
			if err != nil || !fi.IsDir() || fi.Mode().Perm().String() != map[string]string{"0700": "-rwx------", "0750": "-rwxr-x---"}[value] {
				t.Errorf("out: %v %v, want a directory with mode %s", fi.Mode(), err, value)
			}
		},
		gone: absent("out"),
	},
}

func TestExamplesDeploy(t *testing.T) {
	t.Parallel()
	pier := testbin.Pier(t)
	for name, d := range deployments {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, bin := range d.needs {
				testneed.Tool(t, bin)
			}
			dir := t.TempDir()
			exe := d.exe(t)
			for _, value := range []string{d.first, d.second} {
				hcl := strings.NewReplacer("EXE", exe, "VALUE", value).Replace(d.hcl)
				if err := os.WriteFile(filepath.Join(dir, "main.pier.hcl"), []byte(hcl), 0o644); err != nil {
					t.Fatal(err)
				}
				runPier(t, pier, dir, "apply")
				d.verify(t, dir, value)
			}
			if d.gone != nil {
				runPier(t, pier, dir, "destroy", "--yes")
				d.gone(t, dir)
			}
		})
	}
}

func runPier(t *testing.T, pier, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(pier, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("pier %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
}
