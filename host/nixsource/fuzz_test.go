package nixsource

import (
	"strings"
	"testing"
)

// FuzzParseTraces feeds arbitrary stderr, which a flake's own traces and
// Nix's messages share with the driver's events.
func FuzzParseTraces(f *testing.F) {
	f.Add([]byte("trace: pier:{\"begin\":[\"a\"],\"kind\":\"member\"}\ntrace: pier:{\"need\":[\"db\"],\"output\":\"x\"}\nerror: boom\n"))
	f.Add([]byte("trace: pier:{\"read\":[]}\ntrace: pier:{\"begin\":[]}\n"))
	f.Add([]byte("error: evaluation aborted with the following error message: 'pier: x"))
	f.Fuzz(func(t *testing.T, stderr []byte) {
		tr := parseTraces(stderr)
		_ = tr.message()
		// Every line that is not a driver event stays, in order, as text.
		var want []string
		for l := range strings.SplitSeq(strings.TrimRight(string(stderr), "\n"), "\n") {
			if !strings.HasPrefix(l, tracePrefix) {
				want = append(want, l)
			}
		}
		var got []string
		for _, l := range tr.other {
			if !strings.HasPrefix(l, tracePrefix) {
				got = append(got, l)
			}
		}
		if strings.Join(want, "\n") != strings.Join(got, "\n") {
			t.Errorf("text lines %q, want %q", got, want)
		}
	})
}

// FuzzInstallable checks that any reference either parses into an
// installable with exactly one attribute part or is refused.
func FuzzInstallable(f *testing.F) {
	for _, s := range []string{".", "./x#a", "path:/a?b=c#d", "git+file:.", "github:o/r", "#", "path:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		inst, err := installable(ref)
		if err != nil {
			return
		}
		if !strings.Contains(inst, "#") || strings.HasSuffix(inst, "#") {
			t.Errorf("installable(%q) = %q, want REF#ATTR", ref, inst)
		}
	})
}
