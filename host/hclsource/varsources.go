package hclsource

import (
	"path/filepath"
	"slices"
	"strings"
)

// Where variable values come from besides --var and --var-file, under
// pier's names for Terraform's: terraform.tfvars is pier.vars,
// *.auto.tfvars is *.auto.pier.vars (the .pier. infix of *.pier.hcl), each
// also in HCL's JSON syntax with .json appended, and TF_VAR_name is
// PIER_VAR_name, with TF_VAR_name read too. Lowest to highest precedence:
// defaults, TF_VAR_, PIER_VAR_, pier.vars, pier.vars.json, *.auto.pier.vars
// and *.auto.pier.vars.json in lexical order, --var-file in order, --var.
const (
	// envVarPrefix starts an environment variable that sets a variable.
	envVarPrefix = "PIER_VAR_"
	// tfEnvVarPrefix is Terraform's, read so that an environment set up
	// for terraform works unchanged; PIER_VAR_ wins over it.
	tfEnvVarPrefix = "TF_VAR_"

	varFile     = "pier.vars"
	autoVarFile = ".auto.pier.vars"
)

// IsAutoVarFile reports whether a file of that name in the deployment
// directory is read for variable values without --var-file: pier.vars,
// pier.vars.json, *.auto.pier.vars and *.auto.pier.vars.json.
func IsAutoVarFile(name string) bool {
	name = strings.TrimSuffix(name, ".json")
	return name == varFile || strings.HasSuffix(name, autoVarFile) && len(name) > len(autoVarFile)
}

// sortAutoVarFiles orders auto-loaded files by precedence, lowest first:
// pier.vars, pier.vars.json, then the *.auto.* files by name.
func sortAutoVarFiles(paths []string) []string {
	rank := func(p string) int {
		switch filepath.Base(p) {
		case varFile:
			return 0
		case varFile + ".json":
			return 1
		}
		return 2
	}
	slices.SortFunc(paths, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(filepath.Base(a), filepath.Base(b))
	})
	return paths
}

// EnvVars picks the variable values out of an environment (os.Environ's
// form): PIER_VAR_name=VALUE, and TF_VAR_name=VALUE where no PIER_VAR_name
// sets the same variable.
func EnvVars(environ []string) map[string]string {
	out := map[string]string{}
	for _, prefix := range []string{tfEnvVarPrefix, envVarPrefix} {
		for _, kv := range environ {
			k, v, ok := strings.Cut(kv, "=")
			if name, found := strings.CutPrefix(k, prefix); ok && found && name != "" {
				out[name] = v
			}
		}
	}
	return out
}
