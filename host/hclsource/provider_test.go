package hclsource

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/pierhq/pier/host/source"
)

func TestProviders(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "providers")
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := mustResolve(t, mustLoad(t, dir, Options{}), nil)
	want := map[string]*source.Provider{
		"local": {Name: "local", Builtin: "local"},
		"script": {
			Name:        "script",
			Executable:  filepath.Join(abs, "bin", "provider.py"),
			Args:        []string{"--verbose"},
			Env:         map[string]string{"MODE": "test"},
			Operations:  []string{"destroy", "read"},
			Parallelism: 4,
		},
		"onpath": {Name: "onpath", Executable: "my-provider"},
		"null": {
			Name:       "null",
			Terraform:  filepath.Join(abs, "terraform-provider-null"),
			Config:     map[string]any{"region": "eu", "retries": json.Number("3")},
			Operations: []string{"destroy", "import"},
		},
	}
	if diff := cmp.Diff(want, s.Providers, cmpopts.IgnoreFields(source.Provider{}, "Range")); diff != "" {
		t.Errorf("providers (-want +got):\n%s", diff)
	}
	if got := s.Providers["script"].Range.String(); got != filepath.Join(dir, "main.pier.hcl")+":10:1" {
		t.Errorf("script range = %s", got)
	}
}
