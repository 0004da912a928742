package statedoc

import (
	"reflect"
	"testing"

	"github.com/pierhq/pier/host/source"
)

// TestParseStep holds parseStep's fast path to what the general one,
// source.ParseAddress, reads, and its canonical keys to spell back as
// themselves.
func TestParseStep(t *testing.T) {
	for _, key := range []string{
		"a", "a[0]", "a[5]", "a[123456]", "web-1", "x_y[7]", "A9", "5", "5[2]",
		"a[05]", "a[+5]", "a[-5]", "a[]", "a[", "a]", "a[5]x", "a[5][6]", `a["k"]`, `"q"`,
		"module", "module.site", `module.site["blog"]`, "a.b", "a b", "é", "a[9999999999999999999]",
		"modules[3]", "",
	} {
		step, canonical := parseStep(key)
		want := source.Step{Name: key}
		if key != "" && key[0] != '"' {
			if a, err := source.ParseAddress(key); err == nil && len(a) == 1 {
				want = a[0]
			}
		}
		if !reflect.DeepEqual(step, want) {
			t.Errorf("parseStep(%q) = %#v, want %#v", key, step, want)
		}
		if canonical && (source.Address{step}).String() != key {
			t.Errorf("parseStep(%q) is canonical, but spells %q", key, source.Address{step}.String())
		}
	}
}
