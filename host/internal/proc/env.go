package proc

import (
	"maps"
	"slices"
	"strings"
)

// allowedEnv are the parent's variables a provider inherits. A provider
// needs to find programs (PATH), a home and user for tools that read
// dotfiles, locale and time zone for correct text and timestamps, a
// temporary directory, and TLS roots. PIER_LOG carries pier's log level
// to providers that honour it (pier's own adapters do), PIER_CPUPROFILE
// and PIER_MEMPROFILE ask pier's adapters for CPU and heap profiles of
// their own. Everything else, notably cloud
// credentials in the parent's environment, must be passed explicitly.
var allowedEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "PIER_LOG", "PIER_CPUPROFILE",
	"PIER_MEMPROFILE",
}

// allowedEnvPrefixes are inherited by prefix: locale categories and Nix's
// own settings (store location, remote builders, NIX_SSL_CERT_FILE).
var allowedEnvPrefixes = []string{"LC_", "NIX_"}

// ConfigFDEnv names the variable that tells a provider which file
// descriptor carries its configuration, when there is one.
const ConfigFDEnv = "PIER_PROVIDER_CONFIG_FD"

// buildEnv returns the child's environment in sorted order: the allowed
// variables of parent (os.Environ form) overridden by extra.
func buildEnv(parent []string, extra map[string]string) []string {
	env := map[string]string{}
	for _, kv := range parent {
		k, v, ok := strings.Cut(kv, "=")
		if ok && allowed(k) {
			env[k] = v
		}
	}
	maps.Copy(env, extra)
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

func allowed(name string) bool {
	if slices.Contains(allowedEnv, name) {
		return true
	}
	for _, p := range allowedEnvPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
