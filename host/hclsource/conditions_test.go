package hclsource

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pierhq/pier/host/source"
)

func TestVariableValidation(t *testing.T) {
	t.Parallel()
	const src = `
variable "port" {
  type = number
  validation {
    condition     = var.port > 0 && var.port < 65536
    error_message = "port must be a TCP port, not ${var.port}."
  }
}
variable "token" {
  type      = string
  sensitive = true
  default   = "hunter2-secret"
  validation {
    condition     = var.token != "hunter2-secret"
    error_message = "token ${var.token} is too short."
  }
}
provider "local" { builtin = "local" }
`
	tests := map[string]struct {
		opts Options
		want []string
	}{
		"a value the rule refuses": {
			opts: Options{Vars: map[string]string{"port": "70000", "token": "a-token-long-enough-to-pass"}},
			want: []string{"main.pier.hcl:5:21: Invalid value for variable: port must be a TCP port, not 70000.\n\nThis was checked by the validation block of var.port at main.pier.hcl:4:3."},
		},
		"a sensitive value stays out of the message": {
			opts: Options{Vars: map[string]string{"port": "80"}},
			want: []string{"main.pier.hcl:14:21: Invalid value for variable: " + sensitiveMessage + "\n\nThis was checked by the validation block of var.token at main.pier.hcl:13:3."},
		},
		"both": {
			opts: Options{Vars: map[string]string{"port": "0"}},
			want: []string{
				"main.pier.hcl:5:21: Invalid value for variable: port must be a TCP port, not 0.\n\nThis was checked by the validation block of var.port at main.pier.hcl:4:3.",
				"main.pier.hcl:14:21: Invalid value for variable: " + sensitiveMessage + "\n\nThis was checked by the validation block of var.token at main.pier.hcl:13:3.",
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"main.pier.hcl": src})
			_, err := Load(dir, tc.opts)
			if err == nil {
				t.Fatal("Load succeeded, want a validation error")
			}
			if diff := cmp.Diff(tc.want, diagLines(t, err, dir)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			var de *DiagnosticsError
			errors.As(err, &de)
			for _, d := range de.Diagnostics {
				if _, ok := d.Extra.(CheckRuleExtra); !ok {
					t.Errorf("diagnostic %q names no checkable", d.Summary)
				}
			}
		})
	}
	t.Run("passes, and unknown values are not checked", func(t *testing.T) {
		t.Parallel()
		dir := writeDir(t, map[string]string{"main.pier.hcl": src})
		if _, err := Load(dir, Options{Vars: map[string]string{"port": "443", "token": "a-token-long-enough-to-pass"}}); err != nil {
			t.Errorf("valid values: %v", err)
		}
		if _, err := Load(dir, Options{UnsetUnknown: true, Vars: map[string]string{"token": "a-token-long-enough-to-pass"}}); err != nil {
			t.Errorf("unknown port: %v", err)
		}
	})
}

func TestConditionErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		src  string
		want []string
	}{
		"not a bool": {
			src:  "variable \"x\" {\n  default = \"a\"\n  validation {\n    condition = \"yes please\"\n    error_message = \"no\"\n  }\n}\n",
			want: []string{`main.pier.hcl:4:17: Invalid condition result: the condition of this validation block must be true or false: a bool is required.`},
		},
		"missing error_message": {
			src:  "variable \"x\" {\n  default = \"a\"\n  validation {\n    condition = true\n  }\n}\n",
			want: []string{`main.pier.hcl:3:14: Missing required argument: The argument "error_message" is required, but no definition was found.`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"main.pier.hcl": tc.src})
			_, err := Load(dir, Options{})
			if err == nil {
				t.Fatal("Load succeeded")
			}
			if diff := cmp.Diff(tc.want, diagLines(t, err, dir)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckBlocks(t *testing.T) {
	t.Parallel()
	const src = `
provider "local" { builtin = "local" }
variable "want" { default = "b" }
resource "m" {
  provider = provider.local
  type     = "memo"
  inputs   = { initialize_with = "a" }
}
check "memo" {
  assert {
    condition     = resource.m.outputs.value == var.want
    error_message = "memo is ${resource.m.outputs.value}"
  }
  assert {
    condition     = var.want != ""
    error_message = "want is empty"
  }
}
`
	dir := writeDir(t, map[string]string{"main.pier.hcl": src})
	d := mustLoad(t, dir, Options{})
	type result struct {
		Known, Failed bool
		Message       string
		Line          int
	}
	results := func(known source.Outputs) []result {
		var out []result
		for _, c := range mustResolve(t, d, known).Checks {
			if c.Check != "check.memo" {
				t.Errorf("check %q, want check.memo", c.Check)
			}
			out = append(out, result{c.Known, c.Failed, c.Message, c.Range.Line})
		}
		return out
	}
	if diff := cmp.Diff([]result{{Line: 10}, {Known: true, Line: 14}}, results(nil)); diff != "" {
		t.Errorf("before the memo is known (-want +got):\n%s", diff)
	}
	known := source.Outputs{"m": {"value": "a"}}
	if diff := cmp.Diff([]result{{Known: true, Failed: true, Message: "memo is a", Line: 10}, {Known: true, Line: 14}}, results(known)); diff != "" {
		t.Errorf("once it is (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]result{{Known: true, Line: 10}, {Known: true, Line: 14}}, results(source.Outputs{"m": {"value": "b"}})); diff != "" {
		t.Errorf("once it holds (-want +got):\n%s", diff)
	}
}
