package hclsource

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/adapters/builtin"
	"github.com/pierhq/pier/host/source"
	"github.com/zclconf/go-cty/cty"
)

// sensitiveHeader declares a provider, a state handler and a sensitive
// variable, on lines 1-11.
const sensitiveHeader = `provider "local" {
  builtin = "local"
}
resource "state" {
  provider = provider.local
  type     = "state_file"
}
variable "pw" {
  default   = "hunter2-secret"
  sensitive = true
}
`

// tfOutputs are the recorded outputs of a Terraform resource whose schema
// marks sensitive_content and rules.*.key sensitive, as the bridge writes
// them.
func tfOutputs() map[string]any {
	return map[string]any{
		"id":                "f1",
		"sensitive_content": "SEKRET-content",
		"rules":             []any{map[string]any{"key": "SEKRET-rule", "port": json.Number("80")}},
		"__tf":              map[string]any{"schema_version": json.Number("0"), "sensitive_paths": []any{"sensitive_content", "rules.*.key"}},
	}
}

// TestSensitiveReferences: sensitivity flows, as a cty mark, from where it
// starts (a sensitive variable, an attribute a Terraform resource's
// outputs list as sensitive, an output echoing a sensitive input) through
// references and functions into the referencing resource's sensitive
// input paths.
func TestSensitiveReferences(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		src   string
		known source.Outputs
		// want are the sensitive input paths of resource "b".
		want []string
	}{
		"terraform sensitive attribute": {
			src: `resource "a" {
  provider = provider.local
  type     = "exec"
  state    = resource.state
}
resource "b" {
  provider = provider.local
  type     = "exec"
  inputs   = { contents = resource.a.outputs.sensitive_content, id = resource.a.outputs.id }
}
`,
			known: source.Outputs{"a": tfOutputs()},
			want:  []string{"contents"},
		},
		"through functions and templates": {
			src: `resource "a" {
  provider = provider.local
  type     = "exec"
  state    = resource.state
}
resource "b" {
  provider = provider.local
  type     = "exec"
  inputs   = {
    upper = upper(resource.a.outputs.sensitive_content)
    tmpl  = "key=${resource.a.outputs.rules[0].key}"
    port  = resource.a.outputs.rules[0].port
    list  = [for r in resource.a.outputs.rules : r.key]
  }
}
`,
			known: source.Outputs{"a": tfOutputs()},
			want:  []string{"list.*", "tmpl", "upper"},
		},
		"terraform input of the same name": {
			src: `resource "a" {
  provider = provider.local
  type     = "exec"
  state    = resource.state
  inputs   = { sensitive_content = "SEKRET-content" }
}
resource "b" {
  provider = provider.local
  type     = "exec"
  inputs   = { x = resource.a.inputs.sensitive_content }
}
`,
			known: source.Outputs{"a": tfOutputs()},
			want:  []string{"x"},
		},
		"a terraform resource's schema says which outputs": {
			src: `resource "a" {
  provider = provider.local
  type     = "exec"
  state    = resource.state
  inputs   = { value = var.pw }
}
resource "b" {
  provider = provider.local
  type     = "exec"
  inputs   = { v = resource.a.outputs.value, id = resource.a.outputs.id }
}
`,
			known: source.Outputs{"a": map[string]any{"id": "f1", "value": "hunter2-secret", "__tf": map[string]any{"schema_version": json.Number("0")}}},
			want:  []string{"v"},
		},
		"every output of a v0 resource with a sensitive input": {
			src: `resource "a" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { value = var.pw, other = "x" }
}
resource "b" {
  provider = provider.local
  type     = "exec"
  inputs   = { v = resource.a.outputs.value, o = resource.a.outputs.other }
}
`,
			known: source.Outputs{"a": {"value": "hunter2-secret", "other": "x"}},
			want:  []string{"o", "v"},
		},
		"each.value of a map of secrets": {
			src: `resource "a" {
  provider = provider.local
  type     = "exec"
  for_each = { one = var.pw }
  inputs   = { v = each.value, k = each.key }
}
resource "b" {
  provider = provider.local
  type     = "exec"
  inputs   = { v = resource.a["one"].inputs.v, k = resource.a["one"].inputs.k }
}
`,
			want: []string{"v"},
		},
		"count from a secret": {
			src: `resource "b" {
  provider = provider.local
  type     = "exec"
  count    = strlen(var.pw) > 3 ? 1 : 0
  inputs   = { i = count.index }
}
`,
			want: nil,
		},
		"nothing sensitive": {
			src: `resource "a" {
  provider = provider.local
  type     = "exec"
  state    = resource.state
}
resource "b" {
  provider = provider.local
  type     = "exec"
  inputs   = { id = resource.a.outputs.id, port = resource.a.outputs.rules[0].port }
}
`,
			known: source.Outputs{"a": tfOutputs()},
			want:  nil,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := mustLoad(t, writeDir(t, map[string]string{"main.pier.hcl": sensitiveHeader + tc.src}), Options{})
			s := mustResolve(t, d, tc.known)
			var got []string
			found := false
			for _, r := range s.Ready {
				if r.Address[0].Name == "b" {
					got, found = r.SensitiveInputs, true
				}
			}
			if !found {
				t.Fatalf("resource b is not ready: %+v", view(t, s))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("sensitive inputs of b (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSensitiveRules: a marked value cannot become an instance key or an
// output not declared sensitive; the error names the block and never
// holds the value.
func TestSensitiveRules(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		src   string
		known source.Outputs
		want  []string
	}{
		"for_each over a set of secrets": {
			src: `resource "m" {
  provider = provider.local
  type     = "exec"
  for_each = toset([var.pw])
}
`,
			want: []string{`main.pier.hcl:15:14: Invalid for_each argument: Sensitive values, or values derived from sensitive values, cannot be used as for_each arguments. If used, the sensitive value could be exposed as a resource instance key.`},
		},
		"for_each over a sensitive map": {
			src: `variable "m" {
  default   = { a = "b" }
  sensitive = true
}
resource "m" {
  provider = provider.local
  type     = "exec"
  for_each = var.m
}
`,
			want: []string{`main.pier.hcl:19:14: Invalid for_each argument: Sensitive values, or values derived from sensitive values, cannot be used as for_each arguments. If used, the sensitive value could be exposed as a resource instance key.`},
		},
		"output of a terraform sensitive attribute": {
			src: `resource "a" {
  provider = provider.local
  type     = "exec"
  state    = resource.state
}
output "content" {
  value = resource.a.outputs.sensitive_content
}
`,
			known: source.Outputs{"a": tfOutputs()},
			want: []string{`main.pier.hcl:17:1: Output refers to sensitive values: To reduce the risk of accidentally exporting sensitive data that was intended to be only internal, ` +
				`pier requires that any output containing sensitive data be explicitly marked as sensitive, to confirm your intent. ` +
				`If you do intend to export this data, annotate output "content" as sensitive by adding the argument sensitive = true.`},
		},
		"output of the whole object": {
			src: `resource "a" {
  provider = provider.local
  type     = "exec"
  state    = resource.state
}
output "all" {
  value = resource.a.outputs
}
`,
			known: source.Outputs{"a": tfOutputs()},
			want: []string{`main.pier.hcl:17:1: Output refers to sensitive values: To reduce the risk of accidentally exporting sensitive data that was intended to be only internal, ` +
				`pier requires that any output containing sensitive data be explicitly marked as sensitive, to confirm your intent. ` +
				`If you do intend to export this data, annotate output "all" as sensitive by adding the argument sensitive = true.`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"main.pier.hcl": sensitiveHeader + tc.src})
			d := mustLoad(t, dir, Options{})
			_, err := d.Resolve(t.Context(), tc.known)
			if err == nil {
				t.Fatal("Resolve succeeded, want diagnostics")
			}
			got := diagLines(t, err, dir)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if s := strings.Join(got, "\n"); strings.Contains(s, "SEKRET") || strings.Contains(s, "hunter2") {
				t.Errorf("diagnostics show a secret: %s", s)
			}
		})
	}
}

// TestSensitiveOutputDeclared: an output declared sensitive may hold a
// marked value, and says it is sensitive.
func TestSensitiveOutputDeclared(t *testing.T) {
	t.Parallel()
	d := mustLoad(t, writeDir(t, map[string]string{"main.pier.hcl": sensitiveHeader + `resource "a" {
  provider = provider.local
  type     = "exec"
  state    = resource.state
}
output "content" {
  value     = resource.a.outputs.sensitive_content
  sensitive = true
}
output "id" {
  value = resource.a.outputs.id
}
`}), Options{})
	s := mustResolve(t, d, source.Outputs{"a": tfOutputs()})
	want := map[string]any{"content (sensitive)": "SEKRET-content", "id": "f1"}
	if diff := cmp.Diff(want, outputsView(s)); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}

func TestMarkPath(t *testing.T) {
	t.Parallel()
	obj := cty.ObjectVal(map[string]cty.Value{
		"a":    cty.StringVal("x"),
		"list": cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"k": cty.StringVal("1")}), cty.ObjectVal(map[string]cty.Value{"k": cty.StringVal("2")})}),
		"m":    cty.MapVal(map[string]cty.Value{"p": cty.StringVal("q")}),
		"set":  cty.SetVal([]cty.Value{cty.StringVal("s")}),
		"null": cty.NullVal(cty.String),
	})
	tests := map[string]struct {
		v    cty.Value
		path []any
		want []string
	}{
		"attribute":       {v: obj, path: []any{"a"}, want: []string{"a"}},
		"every element":   {v: obj, path: []any{"list", "*", "k"}, want: []string{"list.*.k"}},
		"json index":      {v: obj, path: []any{"list", json.Number("1"), "k"}, want: []string{"list.*.k"}},
		"float index":     {v: obj, path: []any{"list", float64(0)}, want: []string{"list.*"}},
		"index too big":   {v: obj, path: []any{"list", float64(5)}},
		"map key":         {v: obj, path: []any{"m", "p"}, want: []string{"m.p"}},
		"set whole":       {v: obj, path: []any{"set", "*"}, want: []string{"set"}},
		"missing":         {v: obj, path: []any{"nope"}},
		"through a null":  {v: obj, path: []any{"null", "x"}},
		"null itself":     {v: obj, path: []any{"null"}, want: []string{"null"}},
		"whole":           {v: obj, path: []any{}, want: []string{"*"}},
		"unknown":         {v: cty.DynamicVal, path: []any{"a"}},
		"empty object":    {v: cty.EmptyObjectVal, path: []any{"a"}},
		"marked parent":   {v: obj.Mark(readMark("x")), path: []any{"a"}, want: []string{"a"}},
		"wildcard object": {v: cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "b": cty.StringVal("y")}), path: []any{"*"}, want: []string{"a", "b"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := sensitivePaths(markPath(tc.v, tc.path))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("sensitive paths (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSensitiveFunctionErrors: an error from a function given a
// sensitive value, or a value derived from one, never holds it, in the
// diagnostic's text or in what the text renderer lists.
func TestSensitiveFunctionErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		expr string
		want string
	}{
		"tonumber": {
			expr: `tonumber(var.pw)`,
			want: `main.pier.hcl:20:29: Invalid function argument: Invalid value for "v" parameter: cannot convert this sensitive string to number.`,
		},
		"tobool of a derived value": {
			expr: `tobool(upper(var.pw))`,
			want: `main.pier.hcl:20:27: Invalid function argument: Invalid value for "v" parameter: cannot convert this sensitive string to bool.`,
		},
		"a function that quotes its argument": {
			expr: `timeadd("2024-01-02T03:04:05Z", var.pw)`,
			want: `main.pier.hcl:20:20: Error in function call: Call to function "timeadd" failed with a sensitive argument; the error message is hidden because it could show the value.`,
		},
		"a derived value in a function's message": {
			expr: `timeadd("2024-01-02T03:04:05Z", "${upper(var.pw)}s")`,
			want: `main.pier.hcl:20:20: Error in function call: Call to function "timeadd" failed with a sensitive argument; the error message is hidden because it could show the value.`,
		},
		"a terraform sensitive attribute": {
			expr: `tonumber(resource.a.outputs.sensitive_content)`,
			want: `main.pier.hcl:20:29: Invalid function argument: Invalid value for "v" parameter: cannot convert this sensitive string to number.`,
		},
		"not sensitive keeps the message": {
			expr: `tonumber(resource.a.outputs.id)`,
			want: `main.pier.hcl:20:29: Invalid function argument: Invalid value for "v" parameter: cannot convert "f1" to number; given string must be a decimal representation of a number.`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"main.pier.hcl": sensitiveHeader + `resource "a" {
  provider = provider.local
  type     = "exec"
  state    = resource.state
}
resource "b" {
  provider = provider.local
  type     = "exec"
  inputs   = { v = ` + tc.expr + ` }
}
`})
			d := mustLoad(t, dir, Options{})
			_, err := d.Resolve(t.Context(), source.Outputs{"a": tfOutputs()})
			if err == nil {
				t.Fatal("Resolve succeeded, want diagnostics")
			}
			if diff := cmp.Diff([]string{tc.want}, diagLines(t, err, dir)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			var text strings.Builder
			var de *DiagnosticsError
			if errors.As(err, &de) {
				if err := de.WriteText(&text, 0, false); err != nil {
					t.Fatal(err)
				}
			}
			for _, secret := range []string{"hunter2", "HUNTER2", "SEKRET"} {
				if strings.Contains(text.String(), secret) || strings.Contains(err.Error(), secret) {
					t.Errorf("the error shows %s:\n%s", secret, text.String())
				}
			}
		})
	}
}

// TestSensitiveDefaults: a builtin adapter's type asks for inputs when
// another holds a sensitive value (local's file: mode "0600" when its
// contents are sensitive); the deployment's own value wins.
func TestSensitiveDefaults(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		inputs string
		want   map[string]any
	}{
		"sensitive contents": {
			inputs: `{ name = "f", contents = "pw=${var.pw}" }`,
			want:   map[string]any{"name": "f", "contents": "pw=hunter2-secret", "mode": "0600"},
		},
		"a mode of its own": {
			inputs: `{ name = "f", contents = var.pw, mode = "0640" }`,
			want:   map[string]any{"name": "f", "contents": "hunter2-secret", "mode": "0640"},
		},
		"plain contents": {
			inputs: `{ name = "f", contents = "x" }`,
			want:   map[string]any{"name": "f", "contents": "x"},
		},
		"only the name is sensitive": {
			inputs: `{ name = var.pw, contents = "x" }`,
			want:   map[string]any{"name": "hunter2-secret", "contents": "x"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := mustLoad(t, writeDir(t, map[string]string{"main.pier.hcl": sensitiveHeader + `resource "f" {
  provider = provider.local
  type     = "file"
  inputs   = ` + tc.inputs + `
}
`}), Options{Builtins: builtin.Capabilities})
			s := mustResolve(t, d, nil)
			if diff := cmp.Diff(tc.want, view(t, s)["f"].Inputs); diff != "" {
				t.Errorf("inputs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnmarkInputs gives, in one walk, what UnmarkDeep and sensitivePaths
// give in two: the same unmarked value, every mark, and the same paths.
func TestUnmarkInputs(t *testing.T) {
	t.Parallel()
	secret := cty.NewValueMarks(sensitiveMark{})
	read := readMark("m[1]")
	obj := cty.ObjectVal(map[string]cty.Value{
		"a": cty.StringVal("x"),
		"b": cty.ListVal([]cty.Value{cty.StringVal("y"), cty.StringVal("z")}),
		"c": cty.MapVal(map[string]cty.Value{"k": cty.NumberIntVal(1)}),
		"d": cty.SetVal([]cty.Value{cty.StringVal("s")}),
	})
	tests := map[string]cty.Value{
		"a read mark only":   obj.Mark(read),
		"deep read marks":    cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x").Mark(read), "b": cty.ListVal([]cty.Value{cty.StringVal("y").Mark(read)})}),
		"sensitive and read": cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x").WithMarks(secret, cty.NewValueMarks(read)), "c": cty.MapVal(map[string]cty.Value{"k": cty.NumberIntVal(1).WithMarks(secret)})}),
		"whole sensitive":    obj.WithMarks(secret),
		"marked set":         cty.ObjectVal(map[string]cty.Value{"d": cty.SetVal([]cty.Value{cty.StringVal("s")}).Mark(read)}),
		"unknown marked":     cty.ObjectVal(map[string]cty.Value{"u": cty.UnknownVal(cty.String).Mark(read), "v": cty.UnknownVal(cty.String).WithMarks(secret)}),
		"null marked":        cty.ObjectVal(map[string]cty.Value{"n": cty.NullVal(cty.String).WithMarks(secret)}),
		"in a list":          markPath(obj, []any{"b", "*"}),
		"flat read marks":    cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x").Mark(read), "n": cty.NumberIntVal(2), "b": cty.True.Mark(readMark("m[2]"))}),
		"flat sensitive":     cty.ObjectVal(map[string]cty.Value{"z": cty.StringVal("x").WithMarks(secret, cty.NewValueMarks(read)), "a": cty.StringVal("y").WithMarks(secret), "m": cty.StringVal("p")}),
		"flat all marked":    cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x").WithMarks(secret), "d": cty.DynamicVal.Mark(waitMark("m[0]"))}).WithMarks(secret, cty.NewValueMarks(read)),
		"flat unmarked":      cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x"), "n": cty.NullVal(cty.DynamicPseudoType)}),
		"empty marked":       cty.EmptyObjectVal.Mark(read),
		"flat then deep":     cty.ObjectVal(map[string]cty.Value{"a": cty.StringVal("x").Mark(read), "t": cty.TupleVal([]cty.Value{cty.StringVal("y").WithMarks(secret)})}),
	}
	for name, v := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			wantVal, wantMarks := v.UnmarkDeep()
			wantPaths := sensitivePaths(v)
			gotVal, gotMarks, gotPaths := unmarkInputs(v)
			if !gotVal.RawEquals(wantVal) {
				t.Errorf("unmarked = %#v, want %#v", gotVal, wantVal)
			}
			if !gotMarks.Equal(wantMarks) {
				t.Errorf("marks = %v, want %v", gotMarks, wantMarks)
			}
			if diff := cmp.Diff(wantPaths, gotPaths); diff != "" {
				t.Errorf("sensitive paths (-want +got):\n%s", diff)
			}
		})
	}
}
