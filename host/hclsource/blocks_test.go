package hclsource

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const blocksHead = `
provider "local" { builtin = "local" }
variable "ids" { default = { a = "id-a", b = "id-b" } }
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "s.json" }
}
resource "one" {
  provider = provider.local
  type     = "file"
  state    = resource.state
}
resource "many" {
  for_each = var.ids
  provider = provider.local
  type     = "file"
  state    = resource.state
}
deployment "web" {
  resource "app" {
    provider = provider.local
    type     = "file"
    state    = resource.state
  }
}
`

// multiline spells one-line import and removed blocks, written
// "import { a = 1, b = 2 }" here for brevity, as HCL wants them: one
// argument a line.
func multiline(body string) string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		if (strings.HasPrefix(line, "import {") || strings.HasPrefix(line, "removed {")) && strings.HasSuffix(line, "}") {
			open := strings.Index(line, "{")
			inner := strings.TrimSpace(line[open+1 : len(line)-1])
			line = line[:open+1] + "\n  " + strings.ReplaceAll(inner, ", ", "\n  ") + "\n}"
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// Import and removed blocks become the snapshot's Imports and Removed;
// for_each gives one import per element, and both of Terraform's
// spellings of destroy = false work.
func TestImportAndRemovedBlocks(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body        string
		wantImports []string
		wantRemoved []string
	}{
		"single import": {
			body:        `import { to = resource.one, id = "x" }`,
			wantImports: []string{`one <- "x"`},
		},
		"for_each import": {
			body:        `import { for_each = var.ids, to = resource.many[each.key], id = each.value }`,
			wantImports: []string{`many["a"] <- "id-a"`, `many["b"] <- "id-b"`},
		},
		"literal key and nested": {
			body: `import { to = resource.many["a"], id = "k" }
import { to = deployment.web.resource.app, id = "${var.ids.b}-2" }`,
			wantImports: []string{`many["a"] <- "k"`, `web.app <- "id-b-2"`},
		},
		"removed": {
			body: `removed { from = resource.old, provider = provider.local }
removed { from = resource.gone[0], destroy = false }
removed {
  from = deployment.x.resource.y
  lifecycle { destroy = false }
}`,
			wantRemoved: []string{"old by local destroy=true", "gone[0] by  destroy=false", "x.y by  destroy=false"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := mustLoad(t, writeDir(t, map[string]string{"main.pier.hcl": blocksHead + multiline(tc.body)}), Options{})
			s := mustResolve(t, d, nil)
			var imports, removed []string
			for _, im := range s.Imports {
				imports = append(imports, im.To.String()+` <- "`+im.ID+`"`)
			}
			for _, rm := range s.Removed {
				removed = append(removed, rm.From.String()+" by "+rm.Provider+" destroy="+map[bool]string{true: "true", false: "false"}[rm.Destroy])
			}
			if diff := cmp.Diff(tc.wantImports, imports); diff != "" {
				t.Errorf("imports (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRemoved, removed); diff != "" {
				t.Errorf("removed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestImportAndRemovedBlockErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		body string
		want string
	}{
		"unknown target":     {`import { to = resource.nope, id = "x" }`, `no resource "nope" is declared here`},
		"missing key":        {`import { to = resource.many, id = "x" }`, `import into one instance`},
		"bad key":            {`import { to = resource.one[0], id = "x" }`, `has neither count nor for_each`},
		"duplicate target":   {`import { to = resource.one, id = "x" }` + "\n" + `import { to = resource.one, id = "y" }`, `Duplicate import target`},
		"empty id":           {`import { to = resource.one, id = "" }`, `Invalid import id`},
		"for_each of a list": {`import { for_each = ["a"], to = resource.many[each.key], id = each.value }`, `must be a map, an object or a set of strings`},
		"removed declared":   {`removed { from = resource.one }`, `Removed resource still declared`},
		"removed nested":     {`removed { from = deployment.web.resource.app }`, `Removed resource still declared`},
		"removed bad from":   {`removed { from = var.ids }`, `Invalid removed address`},
		"removed provider":   {`removed { from = resource.old, provider = provider.nope }`, `no provider "nope" is declared`},
		"removed duplicate":  {`removed { from = resource.old }` + "\n" + `removed { from = resource.old }`, `Duplicate removed block`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"main.pier.hcl": blocksHead + multiline(tc.body)})
			_, err := Load(dir, Options{})
			if err == nil {
				t.Fatal("loaded")
			}
			got := strings.Join(diagLines(t, err, dir), "\n")
			if !strings.Contains(got, tc.want) || !strings.Contains(got, "main.pier.hcl:") {
				t.Errorf("got:\n%s\nwant it to contain %q and a position", got, tc.want)
			}
		})
	}
}
