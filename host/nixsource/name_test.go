package nixsource

import (
	"strings"
	"testing"
)

func TestProviderName(t *testing.T) {
	t.Parallel()
	const exe = "/nix/store/hpk9i906f1v1wna65hzj4m65cf2q8m7c-provider.py"
	base := providerName(exe, nil, nil, nil)
	if !strings.HasPrefix(base, "provider.py-") || len(base) != len("provider.py-")+12 {
		t.Errorf("providerName(%s) = %q, want provider.py- and 12 hex digits", exe, base)
	}
	cases := map[string]struct {
		exe  string
		args []string
		env  map[string]string
		ops  []string
	}{
		"other executable":       {exe: "/nix/store/00000000000000000000000000000000-provider.py"},
		"args":                   {exe: exe, args: []string{"--log"}},
		"arg moved to operation": {exe: exe, ops: []string{"--log"}},
		"env":                    {exe: exe, env: map[string]string{"A": "1"}},
		"env value":              {exe: exe, env: map[string]string{"A": "2"}},
		"operations":             {exe: exe, ops: []string{"destroy"}},
	}
	seen := map[string]string{base: "base"}
	for name, tc := range cases {
		got := providerName(tc.exe, tc.args, tc.env, tc.ops)
		if other, ok := seen[got]; ok {
			t.Errorf("%s and %s share the provider name %s", name, other, got)
		}
		seen[got] = name
		if again := providerName(tc.exe, tc.args, tc.env, tc.ops); again != got {
			t.Errorf("%s: name not stable: %s then %s", name, got, again)
		}
	}
	if got := providerName("/usr/bin/p", nil, nil, nil); !strings.HasPrefix(got, "p-") {
		t.Errorf("providerName(/usr/bin/p) = %q, want p-…", got)
	}
}
