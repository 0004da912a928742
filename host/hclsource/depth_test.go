package hclsource

import (
	"errors"
	"github.com/pierhq/pier/host/hcldepth"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNestingTooDeep checks that input nested far past hcldepth.Max is a
// positioned diagnostic, not a Go stack overflow (which no recover can
// catch: before the bound, each of these cases killed the test binary).
func TestNestingTooDeep(t *testing.T) {
	t.Parallel()
	const deep = 100_000
	nest := func(open, mid, close string, n int) string {
		return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
	}
	const varDecl = "variable \"v\" {\n  type = any\n}\n"
	tests := map[string]struct {
		files    map[string]string
		vars     map[string]string
		varFile  string // name of a file in files to pass as --var-file
		wantFile string
		wantLine int
	}{
		"parentheses": {
			files:    map[string]string{"main.pier.hcl": "locals {\n  x = " + nest("(", "1", ")", deep) + "\n}\n"},
			wantFile: "main.pier.hcl", wantLine: 2,
		},
		"brackets": {
			files:    map[string]string{"main.pier.hcl": "locals {\n  x = " + nest("[", "", "]", deep) + "\n}\n"},
			wantFile: "main.pier.hcl", wantLine: 2,
		},
		"templates": {
			files:    map[string]string{"main.pier.hcl": "locals {\n  x = " + nest(`"${`, "1", `}"`, deep) + "\n}\n"},
			wantFile: "main.pier.hcl", wantLine: 2,
		},
		"JSON syntax": {
			files:    map[string]string{"main.pier.json": `{"locals":{"x":` + "\n" + nest("[", "", "]", deep) + "}}"},
			wantFile: "main.pier.json", wantLine: 2,
		},
		"variable file": {
			files:    map[string]string{"main.pier.hcl": varDecl, "deep.vars.hcl": "v = " + nest("[", "", "]", deep) + "\n"},
			varFile:  "deep.vars.hcl",
			wantFile: "deep.vars.hcl", wantLine: 1,
		},
		"JSON variable file": {
			files:    map[string]string{"main.pier.hcl": varDecl, "deep.vars.json": `{"v":` + nest("[", "", "]", deep) + "}"},
			varFile:  "deep.vars.json",
			wantFile: "deep.vars.json", wantLine: 1,
		},
		"--var expression": {
			files:    map[string]string{"main.pier.hcl": "variable \"v\" {\n  type = list(any)\n}\n"},
			vars:     map[string]string{"v": nest("[", "", "]", deep)},
			wantFile: "--var v", wantLine: 1,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for n, content := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, n), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			opts := Options{Vars: tc.vars}
			if tc.varFile != "" {
				opts.VarFiles = []string{filepath.Join(dir, tc.varFile)}
			}
			_, err := Load(dir, opts)
			var de *DiagnosticsError
			if !errors.As(err, &de) {
				t.Fatalf("Load error = %v, want a *DiagnosticsError", err)
			}
			d := de.Diagnostics[0]
			if d.Summary != "Nesting too deep" || d.Subject == nil {
				t.Fatalf("diagnostic %v, want a positioned \"Nesting too deep\"", d)
			}
			if !strings.HasSuffix(d.Subject.Filename, tc.wantFile) || d.Subject.Start.Line != tc.wantLine {
				t.Errorf("at %s, want %s line %d", d.Subject, tc.wantFile, tc.wantLine)
			}
		})
	}
}

// TestNestingAtTheBound checks that nesting up to hcldepth.Max still loads.
func TestNestingAtTheBound(t *testing.T) {
	t.Parallel()
	// locals { x = (((1))) }: the block's brace is one level.
	src := "locals {\n  x = " + strings.Repeat("(", hcldepth.Max-1) + "1" + strings.Repeat(")", hcldepth.Max-1) + "\n}\n"
	if ds := hcldepth.Check([]byte(src), "main.pier.hcl"); ds.HasErrors() {
		t.Fatalf("%d levels refused: %v", hcldepth.Max, ds)
	}
	src = "locals {\n  x = " + strings.Repeat("(", hcldepth.Max) + "1" + strings.Repeat(")", hcldepth.Max) + "\n}\n"
	ds := hcldepth.Check([]byte(src), "main.pier.hcl")
	// The refused "(" is the last: column 7 is the first.
	if !ds.HasErrors() || ds[0].Subject.Start.Line != 2 || ds[0].Subject.Start.Column != 7+hcldepth.Max-1 {
		t.Errorf("%d levels: %v", hcldepth.Max+1, ds)
	}
}

// TestNestingIgnoresText checks that brackets in strings, heredocs and
// comments are not nesting, while templates inside them are.
func TestNestingIgnoresText(t *testing.T) {
	t.Parallel()
	many := strings.Repeat("([{", hcldepth.Max)
	tests := map[string]struct {
		src  string
		deep bool
	}{
		"string":                  {src: "x = \"" + many + "\"\n"},
		"escaped quote":           {src: "x = \"\\\"" + many + "\"\n"},
		"heredoc":                 {src: "x = <<EOF\n" + many + "\nEOF\ny = 1\n"},
		"indented heredoc":        {src: "x = <<-EOT\n  " + many + "\n  EOT\n"},
		"line comment":            {src: "# " + many + "\n// " + many + "\nx = 1\n"},
		"block comment":           {src: "/* " + many + "\n" + many + " */\nx = 1\n"},
		"literal $${":             {src: "x = \"" + strings.Repeat("$${", hcldepth.Max+1) + "\"\n"},
		"template in string":      {src: "x = " + strings.Repeat(`"${`, hcldepth.Max/2+1) + "1" + strings.Repeat(`}"`, hcldepth.Max/2+1) + "\n", deep: true},
		"template in heredoc":     {src: "x = <<EOF\n" + strings.Repeat("${(", hcldepth.Max/2+1) + "1" + strings.Repeat(")}", hcldepth.Max/2+1) + "\nEOF\n", deep: true},
		"nested %{if}":            {src: "x = \"" + strings.Repeat("%{if true}", hcldepth.Max+1) + strings.Repeat("%{endif}", hcldepth.Max+1) + "\"\n", deep: true},
		"nested %{for}":           {src: "x = <<EOF\n" + strings.Repeat("%{~ for i in [1] }", hcldepth.Max+1) + strings.Repeat("%{endfor}", hcldepth.Max+1) + "\nEOF\n", deep: true},
		"%{if} one after another": {src: "x = \"" + strings.Repeat("%{if true}a%{else}b%{endif}", hcldepth.Max+1) + "\"\n"},
		"literal %%{if}":          {src: "x = \"" + strings.Repeat("%%{if true}", hcldepth.Max+1) + "\"\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := hcldepth.Check([]byte(tc.src), "main.pier.hcl").HasErrors(); got != tc.deep {
				t.Errorf("too deep = %v, want %v", got, tc.deep)
			}
		})
	}
}

// TestNestingAcceptsEveryExample runs the scan over every HCL file in the
// module: none is refused.
func TestNestingAcceptsEveryExample(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".hcl") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if ds := hcldepth.Check(src, path); ds.HasErrors() {
			t.Errorf("%s: %v", path, ds)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
