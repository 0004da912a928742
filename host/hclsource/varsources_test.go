package hclsource

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsAutoVarFile(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"pier.vars": true, "pier.vars.json": true, "a.auto.pier.vars": true, "a.auto.pier.vars.json": true,
		".auto.pier.vars": false, "auto.pier.vars": false, "x.pier.vars": false, "terraform.tfvars": false,
		"a.auto.tfvars": false, "main.pier.hcl": false, "pier.vars.hcl": false, "": false,
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := IsAutoVarFile(name); got != want {
				t.Errorf("IsAutoVarFile(%q) = %v, want %v", name, got, want)
			}
		})
	}
}

func TestEnvVars(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		environ []string
		want    map[string]string
	}{
		"nil":              {want: map[string]string{}},
		"pier beats tf":    {environ: []string{"PIER_VAR_a=pier", "TF_VAR_a=tf", "TF_VAR_b=tf"}, want: map[string]string{"a": "pier", "b": "tf"}},
		"order of environ": {environ: []string{"TF_VAR_a=tf", "PIER_VAR_a=pier"}, want: map[string]string{"a": "pier"}},
		"value keeps =":    {environ: []string{"PIER_VAR_a=x=y"}, want: map[string]string{"a": "x=y"}},
		"empty value":      {environ: []string{"PIER_VAR_a="}, want: map[string]string{"a": ""}},
		"others ignored":   {environ: []string{"PIER_VAR_=x", "PIER_VARx=1", "PATH=/bin", "pier_var_a=1"}, want: map[string]string{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, EnvVars(tc.environ)); diff != "" {
				t.Errorf("EnvVars (-want +got):\n%s", diff)
			}
		})
	}
}
