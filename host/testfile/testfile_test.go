package testfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"

	"github.com/pierhq/pier/host/hclsource"
)

func write(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "main"+Suffix)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	t.Parallel()
	path := write(t, `
variables {
  name = "all"
  port = 80
}
run "first" {
  command = plan
  assert {
    condition     = true
    error_message = "never"
  }
}
run "second" {
  variables = { name = "mine", list = ["a"] }
  expect_failures = [var.port, check.site, module.site["blog"].module.page[0].var.title, resource.web, module.site["blog"].resource.page]
}
run "third" {
  variables {
    port = 81
  }
}
`)
	files, err := Load([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	type view struct {
		Name     string
		Command  Command
		Vars     map[string]string
		Asserts  int
		Expected []string
	}
	var got []view
	for _, r := range files[0].Runs {
		v := view{Name: r.Name, Command: r.Command, Vars: map[string]string{}, Asserts: len(r.Asserts), Expected: r.ExpectFailures}
		for k, val := range r.Variables {
			v.Vars[k] = val.GoString()
		}
		got = append(got, v)
	}
	want := []view{
		{Name: "first", Command: CommandPlan, Vars: map[string]string{"name": cty.StringVal("all").GoString(), "port": cty.NumberIntVal(80).GoString()}, Asserts: 1},
		{Name: "second", Command: CommandApply, Vars: map[string]string{"name": cty.StringVal("mine").GoString(), "port": cty.NumberIntVal(80).GoString(), "list": cty.TupleVal([]cty.Value{cty.StringVal("a")}).GoString()}, Expected: []string{"var.port", "check.site", `module.site["blog"].module.page[0].var.title`, "resource.web", `module.site["blog"].resource.page`}},
		{Name: "third", Command: CommandApply, Vars: map[string]string{"name": cty.StringVal("all").GoString(), "port": cty.NumberIntVal(81).GoString()}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		src  string
		want string
	}{
		"quoted command":      {"run \"a\" {\n  command = \"apply\"\n}\n", `main.pier.test.hcl:2:13: Invalid command: command is apply or plan, written without quotes.`},
		"unknown command":     {"run \"a\" {\n  command = destroy\n}\n", `main.pier.test.hcl:2:13: Invalid command`},
		"duplicate run":       {"run \"a\" {}\nrun \"a\" {}\n", `main.pier.test.hcl:2:1: Duplicate run block: run "a" is already declared at`},
		"bad expect_failure":  {"run \"a\" {\n  expect_failures = [output.x]\n}\n", `main.pier.test.hcl:2:22: Invalid expect_failures`},
		"module output":       {"run \"a\" {\n  expect_failures = [module.site.url]\n}\n", `main.pier.test.hcl:2:22: Invalid expect_failures`},
		"module without var":  {"run \"a\" {\n  expect_failures = [module.site[\"a\"].var]\n}\n", `main.pier.test.hcl:2:22: Invalid expect_failures`},
		"var with steps":      {"run \"a\" {\n  expect_failures = [var.port.x]\n}\n", `main.pier.test.hcl:2:22: Invalid expect_failures`},
		"a resource's input":  {"run \"a\" {\n  expect_failures = [resource.web.inputs]\n}\n", `main.pier.test.hcl:2:22: Invalid expect_failures`},
		"a resource instance": {"run \"a\" {\n  expect_failures = [resource.web[0]]\n}\n", `main.pier.test.hcl:2:22: Invalid expect_failures`},
		"unknown attribute":   {"run \"a\" {\n  plan_options = {}\n}\n", `main.pier.test.hcl:2:3: Unsupported argument`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := write(t, tc.src)
			_, err := Load([]string{path})
			var de *hclsource.DiagnosticsError
			if !errors.As(err, &de) {
				t.Fatalf("Load: %v, want a *hclsource.DiagnosticsError", err)
			}
			got := strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), "")
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("error = %q, want it to start with %q", got, tc.want)
			}
		})
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, p := range []string{"b" + Suffix, "a" + Suffix, "main.pier.hcl", "tests/c" + Suffix, "tests/notes.txt"} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a"+Suffix), filepath.Join(dir, "b"+Suffix), filepath.Join(dir, "tests", "c"+Suffix)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Find (-want +got):\n%s", diff)
	}
}
