package plan

import (
	"testing"

	"github.com/pierhq/pier/host/source"
)

func TestRefreshes(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		o    Options
		addr string
		want bool
	}{
		"off by default":           {Options{}, "a", false},
		"all":                      {Options{Refresh: true}, `web.db["x"]`, true},
		"the address named":        {Options{Refresh: true, RefreshTargets: []string{"a"}}, "a", true},
		"an instance below it":     {Options{Refresh: true, RefreshTargets: []string{"web"}}, `web.db["x"]`, true},
		"another address":          {Options{Refresh: true, RefreshTargets: []string{"a"}}, "ab", false},
		"one instance, not others": {Options{Refresh: true, RefreshTargets: []string{"d[0]"}}, "d[1]", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			a, err := source.ParseAddress(tc.addr)
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.o.refreshes(a); got != tc.want {
				t.Errorf("refreshes(%s) = %v, want %v", tc.addr, got, tc.want)
			}
		})
	}
}
