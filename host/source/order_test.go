package source

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompareAddresses(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want []string }{
		"count keys":       {[]string{"w[10]", "w[2]", "w[1]", "w[0]"}, []string{"w[0]", "w[1]", "w[2]", "w[10]"}},
		"nested":           {[]string{"web[10].db", "web[9].db", "web[9]"}, []string{"web[9]", "web[9].db", "web[10].db"}},
		"names around":     {[]string{"b", "a10", "a9", "a"}, []string{"a", "a9", "a10", "b"}},
		"string keys":      {[]string{`k["y"]`, `k["x"]`}, []string{`k["x"]`, `k["y"]`}},
		"leading zeros":    {[]string{"x007", "x7", "x08"}, []string{"x7", "x007", "x08"}},
		"empty":            {[]string{"", "a"}, []string{"", "a"}},
		"digits vs letter": {[]string{"a[b]", "a[1]"}, []string{"a[1]", "a[b]"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := slices.Clone(tc.in)
			slices.SortFunc(got, CompareAddresses)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			for _, a := range got {
				if CompareAddresses(a, a) != 0 {
					t.Errorf("%q is not equal to itself", a)
				}
			}
		})
	}
}
