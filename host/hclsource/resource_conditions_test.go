package hclsource

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/source"
)

// conditionLines summarises the conditions of every resource in a
// snapshot, one line each: address, kind, and unknown, ok or the failure
// (message and block position, relative to dir).
func conditionLines(tb testing.TB, s *source.Snapshot, dir string) []string {
	tb.Helper()
	var out []string
	add := func(r *source.Resource) {
		for _, c := range r.Conditions {
			state := "unknown"
			switch {
			case c.Known && c.Failed:
				if c.Summary != "Resource "+c.Kind.String()+" failed" {
					tb.Errorf("%s: summary %q", r.Address, c.Summary)
				}
				block := strings.TrimPrefix(c.Block.String(), dir+string(filepath.Separator))
				if !strings.HasSuffix(c.Detail, fmt.Sprintf("This was checked by the %s block of resource %s at %s.", c.Kind, r.Address, c.Block)) {
					tb.Errorf("%s: detail %q", r.Address, c.Detail)
				}
				msg := strings.ReplaceAll(c.Message, dir+string(filepath.Separator), "")
				state = fmt.Sprintf("failed at %s: %s", block, msg)
			case c.Known:
				state = "ok"
			}
			out = append(out, fmt.Sprintf("%s %s %s", r.Address, c.Kind, state))
		}
	}
	for _, r := range s.Ready {
		add(r)
	}
	for _, b := range s.Blocked {
		if b.Resource != nil {
			add(b.Resource)
		}
	}
	return out
}

const conditionsSrc = `
provider "p" { executable = "/bin/p" }
variable "min" { default = 3 }
variable "token" {
  default   = "hunter2-secret"
  sensitive = true
}
resource "clock" {
  provider = provider.p
  type     = "t"
}
resource "gate" {
  provider = provider.p
  type     = "t"
  inputs   = { n = 1 }
  lifecycle {
    precondition {
      condition     = tonumber(resource.clock.outputs.value) > var.min
      error_message = "the clock says ${resource.clock.outputs.value}."
    }
  }
}
resource "site" {
  for_each = toset(["blog", "shop"])
  provider = provider.p
  type     = "t"
  inputs   = { name = each.key }
  lifecycle {
    precondition {
      condition     = each.key != "shop" || var.min < 3
      error_message = "no shop while min is ${var.min}."
    }
    postcondition {
      condition     = self.url == "https://${each.key}"
      error_message = "${each.key} is at ${self.url}."
    }
  }
}
resource "secret" {
  provider = provider.p
  type     = "t"
  lifecycle {
    postcondition {
      condition     = self.v == "ok"
      error_message = "${var.token} does not open ${self.v}."
    }
    postcondition {
      condition     = self.missing == 1
      error_message = "unreachable"
    }
  }
}
`

func TestResourceConditions(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		known source.Outputs
		want  []string
	}{
		"before apply: what reads outputs is unknown": {
			known: source.Outputs{},
			want: []string{
				"clock is ready",
				"gate precondition unknown",
				`site["blog"] precondition ok`,
				`site["blog"] postcondition unknown`,
				`site["shop"] precondition failed at main.pier.hcl:29:5: no shop while min is 3.`,
				`site["shop"] postcondition unknown`,
				"secret postcondition unknown",
				"secret postcondition unknown",
			},
		},
		"a precondition that holds, postconditions that fail": {
			known: source.Outputs{
				"clock":        {"value": "7"},
				`site["blog"]`: {"url": "http://blog"},
				`site["shop"]`: {"url": "https://shop"},
				"secret":       {"v": "shut"},
			},
			want: []string{
				"clock is ready",
				"gate precondition ok",
				`site["blog"] precondition ok`,
				`site["blog"] postcondition failed at main.pier.hcl:33:5: blog is at http://blog.`,
				`site["shop"] precondition failed at main.pier.hcl:29:5: no shop while min is 3.`,
				`site["shop"] postcondition ok`,
				"secret postcondition failed at main.pier.hcl:43:5: " + sensitiveMessage,
				`secret postcondition failed at main.pier.hcl:47:5: the condition could not be evaluated: main.pier.hcl:48:27: Unsupported attribute: This object does not have an attribute named "missing".`,
			},
		},
		"a precondition that fails": {
			known: source.Outputs{"clock": {"value": "2"}},
			want: []string{
				"clock is ready",
				"gate precondition failed at main.pier.hcl:17:5: the clock says 2.",
				`site["blog"] precondition ok`,
				`site["blog"] postcondition unknown`,
				`site["shop"] precondition failed at main.pier.hcl:29:5: no shop while min is 3.`,
				`site["shop"] postcondition unknown`,
				"secret postcondition unknown",
				"secret postcondition unknown",
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"main.pier.hcl": conditionsSrc})
			d := mustLoad(t, dir, Options{})
			// A first round without outputs, as a plan starts, so that
			// the round under test is a later one.
			mustResolve(t, d, source.Outputs{})
			s := mustResolve(t, d, tc.known)
			got := append([]string{"clock is ready"}, conditionLines(t, s, dir)...)
			if diff := cmp.Diff(sortedLines(tc.want), sortedLines(got)); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
			for _, r := range s.Ready {
				for _, c := range r.Conditions {
					if strings.Contains(c.Message+c.Detail, "hunter2") {
						t.Errorf("%s: a sensitive value in %q", r.Address, c.Detail)
					}
				}
			}
		})
	}
}

func sortedLines(lines []string) []string { return slices.Sorted(slices.Values(lines)) }

// TestConditionDependencies checks that what a condition reads orders the
// resource, as its inputs do: the resource follows it, and a later round
// with its outputs evaluates the condition again.
func TestConditionDependencies(t *testing.T) {
	t.Parallel()
	dir := writeDir(t, map[string]string{"main.pier.hcl": `
provider "p" { executable = "/bin/p" }
resource "db" {
  provider = provider.p
  type     = "t"
}
resource "app" {
  provider = provider.p
  type     = "t"
  inputs   = { n = 1 }
  lifecycle {
    postcondition {
      condition     = self.port == resource.db.outputs.port
      error_message = "app listens on ${self.port}, the database on ${resource.db.outputs.port}."
    }
  }
}
`})
	d := mustLoad(t, dir, Options{})
	s := mustResolve(t, d, source.Outputs{})
	if diff := cmp.Diff(map[string]string{"db": "ready", "app": "ready"}, status(t, s)); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if got := view(t, s)["app"].DependsOn; !cmp.Equal(got, []string{"db"}) {
		t.Errorf("app depends on %v, want [db]", got)
	}
	s = mustResolve(t, d, source.Outputs{"db": {"port": "5432"}})
	if diff := cmp.Diff([]string{"app postcondition unknown"}, conditionLines(t, s, dir)); diff != "" {
		t.Errorf("db known (-want +got):\n%s", diff)
	}
	s = mustResolve(t, d, source.Outputs{"db": {"port": "5432"}, "app": {"port": "80"}})
	if diff := cmp.Diff([]string{"app postcondition failed at main.pier.hcl:12:5: app listens on 80, the database on 5432."}, conditionLines(t, s, dir)); diff != "" {
		t.Errorf("both known (-want +got):\n%s", diff)
	}
}

func TestResourceConditionErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		lifecycle string
		want      []string
	}{
		"self in a precondition": {
			lifecycle: `precondition {
      condition     = self.v == 1
      error_message = "x"
    }`,
			want: []string{`main.pier.hcl:9:23: Invalid reference: self is available only in a postcondition block, where it is the outputs of resource "web" after it is created or updated; a precondition is checked before that.`},
		},
		"the resource itself": {
			lifecycle: `postcondition {
      condition     = resource.web.outputs.v == 1
      error_message = "x"
    }`,
			want: []string{`main.pier.hcl:9:23: Self-referential block: a postcondition of resource "web" cannot refer to the resource itself: use self.NAME for its outputs.`},
		},
		"an unknown resource": {
			lifecycle: `precondition {
      condition     = resource.nope.outputs.v == 1
      error_message = "x"
    }`,
			want: []string{`main.pier.hcl:9:31: Unknown resource: no resource "nope" is declared here.`},
		},
		"an unknown variable in the message": {
			lifecycle: `precondition {
      condition     = true
      error_message = "${var.nope}"
    }`,
			want: []string{`main.pier.hcl:10:29: Undeclared variable: no variable "nope" is declared.`},
		},
		"no error_message": {
			lifecycle: `postcondition {
      condition = true
    }`,
			want: []string{`main.pier.hcl:8:19: Missing required argument: The argument "error_message" is required, but no definition was found.`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"main.pier.hcl": `
provider "p" { executable = "/bin/p" }
resource "web" {
  provider = provider.p
  type     = "t"
  inputs   = { n = 1 }
  lifecycle {
    ` + tc.lifecycle + `
  }
}
`})
			_, err := Load(dir, Options{})
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			if diff := cmp.Diff(tc.want, diagLines(t, err, dir)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConditionsInModules checks a module's resource: its conditions read
// the module's variables and name the instance by its full address.
func TestConditionsInModules(t *testing.T) {
	t.Parallel()
	dir := writeTree(t, map[string]string{"main.pier.hcl": `
provider "p" { executable = "/bin/p" }
module "site" {
  source    = "./site"
  for_each  = toset(["blog", "shop"])
  providers = { p = provider.p }
  name      = each.key
}
`, "site/main.pier.hcl": `
variable "name" {}
resource "page" {
  provider = provider.p
  type     = "t"
  inputs   = { name = var.name }
  lifecycle {
    postcondition {
      condition     = self.title == var.name
      error_message = "the page of ${var.name} is titled ${self.title}."
    }
  }
}
`})
	d := mustLoad(t, dir, Options{})
	mustResolve(t, d, source.Outputs{})
	s := mustResolve(t, d, source.Outputs{`module.site["blog"].page`: {"title": "blog"}, `module.site["shop"].page`: {"title": "Shop"}})
	want := []string{
		`module.site["blog"].page postcondition ok`,
		`module.site["shop"].page postcondition failed at site/main.pier.hcl:8:5: the page of shop is titled Shop.`,
	}
	if diff := cmp.Diff(want, sortedLines(conditionLines(t, s, dir))); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
}

// TestConditionsSeeTheInstance checks that an instance's conditions read
// its own count.index and each, as its inputs do.
func TestConditionsSeeTheInstance(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		expansion, condition string
		want                 []string
	}{
		"count.index": {
			expansion: "count = 2",
			condition: "count.index < 1",
			want:      []string{"w[0] precondition ok", "w[1] precondition failed at main.pier.hcl:8:5: w 1"},
		},
		"each.key": {
			expansion: `for_each = toset(["a", "b"])`,
			condition: `each.key == "a"`,
			want:      []string{`w["a"] precondition ok`, `w["b"] precondition failed at main.pier.hcl:8:5: w b`},
		},
		"each.value": {
			expansion: `for_each = { a = 1, b = 2 }`,
			condition: `each.value == 1`,
			want:      []string{`w["a"] precondition ok`, `w["b"] precondition failed at main.pier.hcl:8:5: w 2`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			msg := "${count.index}"
			if tc.expansion[0] == 'f' {
				msg = "${each.key}"
				if strings.Contains(tc.condition, "value") {
					msg = "${each.value}"
				}
			}
			dir := writeDir(t, map[string]string{"main.pier.hcl": `provider "p" { executable = "/bin/p" }
resource "w" {
  ` + tc.expansion + `
  provider = provider.p
  type     = "t"
  inputs   = {}
  lifecycle {
    precondition {
      condition     = ` + tc.condition + `
      error_message = "w ` + msg + `"
    }
  }
}
`})
			d := mustLoad(t, dir, Options{})
			s := mustResolve(t, d, source.Outputs{})
			if diff := cmp.Diff(tc.want, sortedLines(conditionLines(t, s, dir))); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
}
