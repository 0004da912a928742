package tfschema

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/host/source"
)

const locateHCL = `resource "state" {
  type = "state_file"
}

deployment "web" {
  resource "file" {
    type = "fixture_file"
    inputs = {
      pth = "a"
      "metadata" = { apikey = "k" }
      rules = [{ name = "a" }, { nme = "b" }]
    }
  }
}

resource "built" {
  inputs = merge({ a = 1 }, { b = 2 })
}
`

func TestLocate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "main.pier.hcl")
	if err := os.WriteFile(file, []byte(locateHCL), 0o644); err != nil {
		t.Fatal(err)
	}
	jsonFile := filepath.Join(dir, "main.pier.json")
	at := func(f string, line, col int) source.Range { return source.Range{Filename: f, Line: line, Column: col} }
	web := at(file, 6, 3)
	l := &Locator{}
	tests := map[string]struct {
		rng  source.Range
		path []any
		want source.Range
	}{
		"top-level key":          {web, []any{"pth"}, at(file, 9, 7)},
		"quoted key":             {web, []any{"metadata"}, at(file, 10, 7)},
		"nested key":             {web, []any{"metadata", "apikey"}, at(file, 10, 22)},
		"list element key":       {web, []any{"rules", 1, "nme"}, at(file, 11, 34)},
		"missing key: enclosing": {web, []any{"metadata", "absent"}, at(file, 10, 7)},
		"not an object literal":  {at(file, 17, 1), []any{"a"}, at(file, 17, 1)},
		"no inputs":              {at(file, 1, 1), []any{"a"}, at(file, 1, 1)},
		"no such block":          {at(file, 2, 1), []any{"a"}, at(file, 2, 1)},
		"json syntax":            {at(jsonFile, 1, 1), []any{"a"}, at(jsonFile, 1, 1)},
		"no position":            {source.Range{}, []any{"a"}, source.Range{}},
		"missing file":           {at(filepath.Join(dir, "gone.pier.hcl"), 1, 1), []any{"a"}, at(filepath.Join(dir, "gone.pier.hcl"), 1, 1)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, l.Locate(tc.rng, tc.path)); diff != "" {
				t.Errorf("Locate (-want +got):\n%s", diff)
			}
		})
	}
}
