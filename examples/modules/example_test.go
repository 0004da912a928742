// Package modules holds an example deployment that makes several sites
// from one module, with tests of that module; this test runs them with
// the real pier binary, as `pier test` would be run in a project's CI.
package modules

import (
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

func TestPierTest(t *testing.T) {
	t.Parallel()
	testbin.PierTest(t, []string{
		`run "plans_a_page_per_site"... pass`,
		`run "makes_the_sites"... pass`,
		`run "adds_a_site"... pass`,
		`run "refuses_a_bad_name"... pass`,
		`run "refuses_a_long_title"... pass`,
		"Success! 5 passed, 0 failed.",
	}, "*.state.json", "*/index.html")
}
