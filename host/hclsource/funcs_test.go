package hclsource

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pierhq/pier/host/source"
)

// TestConversionWaits checks that the to* conversions keep what an
// unknown argument waits for: a resource whose inputs convert another's
// outputs is blocked on that resource, and resolves once it is known.
func TestConversionWaits(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ expr, known, want string }{
		"tonumber": {`tonumber(resource.a.outputs.v)`, "3", "3"},
		"tostring": {`tostring(resource.a.outputs.v)`, "x", "x"},
		"tobool":   {`tobool(resource.a.outputs.v)`, "true", "true"},
		"tolist":   {`tolist([resource.a.outputs.v])`, "x", "[x]"},
		"toset":    {`toset([resource.a.outputs.v])`, "x", "[x]"},
		"tomap":    {`tomap({k = resource.a.outputs.v})`, "x", "map[k:x]"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeDir(t, map[string]string{"main.pier.hcl": `
provider "p" { executable = "/bin/p" }
resource "a" {
  provider = provider.p
  type     = "t"
}
resource "b" {
  provider = provider.p
  type     = "t"
  inputs   = { x = ` + tc.expr + ` }
}
`})
			d := mustLoad(t, dir, Options{})
			s, err := d.Resolve(t.Context(), source.Outputs{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[string]string{"a": "ready", "b": "blocked(a)"}, status(t, s)); diff != "" {
				t.Errorf("before a is known (-want +got):\n%s", diff)
			}
			s, err = d.Resolve(t.Context(), source.Outputs{"a": {"v": tc.known}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[string]string{"a": "ready", "b": "ready"}, status(t, s)); diff != "" {
				t.Errorf("once a is known (-want +got):\n%s", diff)
			}
			for _, r := range s.Ready {
				if r.Address.String() == "b" {
					if got := fmtValue(r.Inputs["x"]); got != tc.want {
						t.Errorf("inputs.x = %s, want %s", got, tc.want)
					}
				}
			}
		})
	}
}

func fmtValue(v any) string { return fmt.Sprint(v) }
