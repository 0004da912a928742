package testfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"

	"github.com/pierhq/pier/host/hclsource"
)

// Suffix ends the name of a test file.
const Suffix = ".pier.test.hcl"

// Command is what a run does.
type Command string

// The commands of a run.
const (
	CommandApply Command = "apply"
	CommandPlan  Command = "plan"
)

// File is one test file.
type File struct {
	// Path is the file's path as found.
	Path string
	Runs []*Run
}

// Run is one run block.
type Run struct {
	Name    string
	Command Command
	// Variables are the file's variables with the run's own over them.
	Variables map[string]cty.Value
	// Asserts are the run's assert blocks.
	Asserts hcl.Blocks
	// ExpectFailures are the checkable objects whose conditions must
	// fail, as written: var.NAME, check.NAME, module.site["blog"].var.NAME.
	ExpectFailures []string
	Range          hcl.Range
}

var fileSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "run", LabelNames: []string{"name"}},
	{Type: "variables"},
}}

var runSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "command"}, {Name: "variables"}, {Name: "expect_failures"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "assert"}, {Type: "variables"}},
}

// Find lists the test files of dir and of its tests directory, as
// terraform test looks in both, in name order.
func Find(dir string) ([]string, error) {
	var out []string
	for _, d := range []string{dir, filepath.Join(dir, "tests")} {
		entries, err := os.ReadDir(d)
		if os.IsNotExist(err) && d != dir {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("find test files: %w", err)
		}
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), Suffix) {
				out = append(out, filepath.Join(d, e.Name()))
			}
		}
	}
	return out, nil
}

// Load parses and decodes the test files at paths. Errors are a
// [*hclsource.DiagnosticsError] with file:line:col.
func Load(paths []string) ([]*File, error) {
	p := hclparse.NewParser()
	var diags hcl.Diagnostics
	var files []*File
	for _, path := range paths {
		f, ds := p.ParseHCLFile(path)
		diags = append(diags, ds...)
		if ds.HasErrors() {
			continue
		}
		tf, ds := decode(path, f.Body)
		diags = append(diags, ds...)
		files = append(files, tf)
	}
	if diags.HasErrors() {
		return nil, &hclsource.DiagnosticsError{Diagnostics: diags, Files: p.Files()}
	}
	return files, nil
}

func decode(path string, body hcl.Body) (*File, hcl.Diagnostics) {
	content, diags := body.Content(fileSchema)
	f := &File{Path: path}
	common := map[string]cty.Value{}
	for _, b := range content.Blocks {
		if b.Type == "variables" {
			diags = append(diags, variables(b.Body, common)...)
		}
	}
	seen := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		if b.Type != "run" {
			continue
		}
		name := b.Labels[0]
		if prev, dup := seen[name]; dup {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate run block",
				Detail: fmt.Sprintf("run %q is already declared at %s:%d:%d.", name, prev.Filename, prev.Start.Line, prev.Start.Column), Subject: b.DefRange.Ptr()})
			continue
		}
		seen[name] = b.DefRange
		r, ds := decodeRun(b, common)
		diags = append(diags, ds...)
		f.Runs = append(f.Runs, r)
	}
	return f, diags
}

func decodeRun(b *hcl.Block, common map[string]cty.Value) (*Run, hcl.Diagnostics) {
	content, diags := b.Body.Content(runSchema)
	r := &Run{Name: b.Labels[0], Command: CommandApply, Variables: make(map[string]cty.Value, len(common)), Range: b.DefRange}
	for k, v := range common {
		r.Variables[k] = v
	}
	if a, ok := content.Attributes["command"]; ok {
		switch hcl.ExprAsKeyword(a.Expr) {
		case "apply":
			r.Command = CommandApply
		case "plan":
			r.Command = CommandPlan
		default:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid command",
				Detail: "command is apply or plan, written without quotes.", Subject: a.Expr.Range().Ptr()})
		}
	}
	if a, ok := content.Attributes["variables"]; ok {
		v, ds := a.Expr.Value(evalContext())
		diags = append(diags, ds...)
		if !ds.HasErrors() {
			if !v.Type().IsObjectType() && !v.Type().IsMapType() {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid variables",
					Detail: "variables is an object of variable values, as in { name = \"x\" }.", Subject: a.Expr.Range().Ptr()})
			} else {
				for k, e := range v.AsValueMap() {
					r.Variables[k] = e
				}
			}
		}
	}
	for _, vb := range content.Blocks {
		switch vb.Type {
		case "variables":
			diags = append(diags, variables(vb.Body, r.Variables)...)
		case "assert":
			r.Asserts = append(r.Asserts, vb)
		}
	}
	if a, ok := content.Attributes["expect_failures"]; ok {
		exprs, ds := hcl.ExprList(a.Expr)
		diags = append(diags, ds...)
		for _, e := range exprs {
			tr, ds := hcl.AbsTraversalForExpr(e)
			if ds.HasErrors() || !checkable(tr) {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid expect_failures",
					Detail: "expect_failures lists what must fail: var.NAME (a validation), module.NAME[KEY].var.NAME (a module's validation), check.NAME, or resource.NAME (a resource's precondition or postcondition, module.NAME[KEY].resource.NAME in a module).", Subject: e.Range().Ptr()})
				continue
			}
			r.ExpectFailures = append(r.ExpectFailures, traversalString(tr))
		}
	}
	return r, diags
}

// variables reads a variables block's NAME = VALUE attributes into vals.
func variables(body hcl.Body, vals map[string]cty.Value) hcl.Diagnostics {
	attrs, diags := body.JustAttributes()
	for name, a := range attrs {
		v, ds := a.Expr.Value(evalContext())
		diags = append(diags, ds...)
		if !ds.HasErrors() {
			vals[name] = v
		}
	}
	return diags
}

// evalContext is what variable values may use: the deployment's
// functions, no references.
func evalContext() *hcl.EvalContext {
	return &hcl.EvalContext{Functions: hclsource.Functions()}
}

// checkable reports whether an expect_failures entry names something
// whose conditions can fail: var.NAME, check.NAME, resource.NAME (every
// instance), or a module instance's variable or resource,
// module.NAME[KEY].var.NAME and module.NAME[KEY].resource.NAME (after
// each module step, as its address spells it).
func checkable(tr hcl.Traversal) bool {
	if len(tr) < 2 {
		return false
	}
	switch tr.RootName() {
	case "var", "check", "resource":
		return len(tr) == 2
	case "module":
	default:
		return false
	}
	rest := tr[1:]
	for {
		if len(rest) < 2 {
			return false
		}
		if _, ok := rest[0].(hcl.TraverseAttr); !ok {
			return false
		}
		rest = rest[1:]
		if _, ok := rest[0].(hcl.TraverseIndex); ok {
			rest = rest[1:]
		}
		switch {
		case len(rest) == 2 && (isAttr(rest[0], "var") || isAttr(rest[0], "resource")):
			_, ok := rest[1].(hcl.TraverseAttr)
			return ok
		case len(rest) > 2 && isAttr(rest[0], "module"):
			rest = rest[1:]
		default:
			return false
		}
	}
}

func isAttr(t hcl.Traverser, name string) bool {
	a, ok := t.(hcl.TraverseAttr)
	return ok && a.Name == name
}

// traversalString spells an expect_failures entry as pier names the
// checkable: var.port, check.site.
func traversalString(tr hcl.Traversal) string {
	var b strings.Builder
	for i, s := range tr {
		switch s := s.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		case hcl.TraverseIndex:
			if s.Key.Type() == cty.String {
				fmt.Fprintf(&b, "[%q]", s.Key.AsString())
			} else {
				fmt.Fprintf(&b, "[%s]", s.Key.AsBigFloat().String())
			}
		}
	}
	return b.String()
}
