package tfschema

import (
	"os"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/pierhq/pier/host/hcldepth"
	"github.com/pierhq/pier/host/source"
	"github.com/zclconf/go-cty/cty"
)

// Locator finds where an input key is written in a deployment's HCL
// source, given the range of its resource block (the only position a
// [source.Resource] carries). It parses each file once and is safe for
// concurrent use. Only native HCL syntax is searched; for anything else
// (JSON syntax, a Nix flake, inputs built by an expression rather than
// written as an object) the resource's own range is the answer.
type Locator struct {
	mu    sync.Mutex
	files map[string]*hcl.File
}

// Locate returns the range of the key at path inside the `inputs` object
// of the resource block declared at rng, or of the deepest enclosing key
// it can find, or rng itself.
func (l *Locator) Locate(rng source.Range, path []any) source.Range {
	if rng.Filename == "" || !strings.HasSuffix(rng.Filename, ".hcl") {
		return rng
	}
	f := l.file(rng.Filename)
	if f == nil {
		return rng
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return rng
	}
	block := findBlock(body, rng)
	if block == nil {
		return rng
	}
	attr := block.Body.Attributes["inputs"]
	if attr == nil {
		return rng
	}
	found := rng
	expr := attr.Expr
	for _, step := range path {
		switch s := step.(type) {
		case string:
			obj, ok := expr.(*hclsyntax.ObjectConsExpr)
			if !ok {
				return found
			}
			item := findItem(obj, s)
			if item == nil {
				return found
			}
			found = toRange(item.KeyExpr.Range())
			expr = item.ValueExpr
		case int:
			tup, ok := expr.(*hclsyntax.TupleConsExpr)
			if !ok || s < 0 || s >= len(tup.Exprs) {
				return found
			}
			expr = tup.Exprs[s]
			found = toRange(expr.Range())
		default:
			return found
		}
	}
	return found
}

func (l *Locator) file(name string) *hcl.File {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f, ok := l.files[name]; ok {
		return f
	}
	if l.files == nil {
		l.files = map[string]*hcl.File{}
	}
	var f *hcl.File
	if src, err := os.ReadFile(name); err == nil {
		// A file that no longer parses (edited since loading) just means
		// no finer position: its errors were the loader's to report.
		if hcldepth.Check(src, name).HasErrors() {
			// Too deep to parse: the loader has said so.
		} else if parsed, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos); !diags.HasErrors() {
			f = parsed
		}
	}
	l.files[name] = f
	return f
}

// findBlock finds the resource block whose definition starts at rng,
// at any depth (resources may sit inside deployment blocks).
func findBlock(body *hclsyntax.Body, rng source.Range) *hclsyntax.Block {
	for _, b := range body.Blocks {
		start := b.DefRange().Start
		if b.Type == "resource" && start.Line == rng.Line && start.Column == rng.Column {
			return b
		}
		r := b.Range()
		if r.Start.Line <= rng.Line && rng.Line <= r.End.Line {
			if found := findBlock(b.Body, rng); found != nil {
				return found
			}
		}
	}
	return nil
}

// findItem finds an object item by its key, written as a bare name or a
// literal string.
func findItem(obj *hclsyntax.ObjectConsExpr, key string) *hclsyntax.ObjectConsItem {
	for i := range obj.Items {
		item := &obj.Items[i]
		if keyName(item.KeyExpr) == key {
			return item
		}
	}
	return nil
}

func keyName(e hclsyntax.Expression) string {
	if k, ok := e.(*hclsyntax.ObjectConsKeyExpr); ok {
		if name := hcl.ExprAsKeyword(k.Wrapped); name != "" && !k.ForceNonLiteral {
			return name
		}
		e = k.Wrapped
	}
	if t, ok := e.(*hclsyntax.TemplateExpr); ok && t.IsStringLiteral() {
		v, diags := t.Value(nil)
		if !diags.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
			return v.AsString()
		}
	}
	return ""
}

func toRange(r hcl.Range) source.Range {
	return source.Range{Filename: r.Filename, Line: r.Start.Line, Column: r.Start.Column}
}
