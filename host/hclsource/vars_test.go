package hclsource

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVariables(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "vars")
	file := func(name string) string { return filepath.Join(dir, name) }
	tests := map[string]struct {
		opts Options
		want map[string]any
	}{
		"defaults": {
			want: map[string]any{"name": "from-default", "port": "#80", "hosts": []any{}, "settings": map[string]any{"debug": false, "level": "#3"}},
		},
		"flags convert to the declared type": {
			opts: Options{Vars: map[string]string{"name": "x", "port": "443", "hosts": `["h1", "h2"]`, "settings": `{debug = true, level = 1}`}},
			want: map[string]any{"name": "x", "port": "#443", "hosts": []any{"h1", "h2"}, "settings": map[string]any{"debug": true, "level": "#1"}},
		},
		"HCL var file": {
			opts: Options{VarFiles: []string{file("a.tfvars.hcl")}},
			want: map[string]any{"name": "from-file", "port": "#8080", "hosts": []any{"a", "b"}, "settings": map[string]any{"debug": false, "level": "#3"}},
		},
		"later files and then flags win": {
			opts: Options{VarFiles: []string{file("a.tfvars.hcl"), file("b.json")}, Vars: map[string]string{"port": "1"}},
			want: map[string]any{"name": "from-json", "port": "#1", "hosts": []any{"a", "b"}, "settings": map[string]any{"debug": true, "level": "#3"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := mustResolve(t, mustLoad(t, dir, tc.opts), nil)
			if len(s.Ready) != 1 {
				t.Fatalf("ready = %d resources, want 1", len(s.Ready))
			}
			if diff := cmp.Diff(tc.want, plain(s.Ready[0].Inputs)); diff != "" {
				t.Errorf("inputs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVariableErrors(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "vars")
	tests := map[string]struct {
		opts Options
		want []string
	}{
		"undeclared in a file": {
			opts: Options{VarFiles: []string{filepath.Join(dir, "bad.hcl")}},
			want: []string{`testdata/vars/bad.hcl:1:1: Undeclared variable: no variable "nme" is declared. Did you mean "name"?`},
		},
		"undeclared flag": {
			opts: Options{Vars: map[string]string{"prot": "1"}},
			want: []string{`Undeclared variable: --var prot: no variable "prot" is declared. Did you mean "port"?`},
		},
		"wrong type from a flag": {
			opts: Options{Vars: map[string]string{"port": "http"}},
			want: []string{`testdata/vars/main.pier.hcl:9:1: Invalid value for variable: variable "port" needs a value of type number: a number is required (the value of --var port).`},
		},
		"missing object attribute": {
			opts: Options{Vars: map[string]string{"settings": `{level = 1}`}},
			want: []string{`testdata/vars/main.pier.hcl:19:1: Invalid value for variable: variable "settings" needs a value of type object({debug=bool,level=number}): attribute "debug" is required (the value of --var settings).`},
		},
		"missing file": {
			opts: Options{VarFiles: []string{filepath.Join(dir, "nope.hcl")}},
			want: []string{`Unreadable variable file: open testdata/vars/nope.hcl: no such file or directory`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(dir, tc.opts)
			if err == nil {
				t.Fatal("Load succeeded, want diagnostics")
			}
			if diff := cmp.Diff(tc.want, diagLines(t, err, "")); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}
