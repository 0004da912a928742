// Package greeting holds an example deployment with its own tests; this
// test runs them with the real pier binary, as `pier test` would be run
// in a project's CI.
package greeting

import (
	"testing"

	"github.com/pierhq/pier/internal/testbin"
)

func TestPierTest(t *testing.T) {
	t.Parallel()
	testbin.PierTest(t, []string{
		`run "plans_the_memo"... pass`,
		`run "writes_the_note"... pass`,
		`run "keeps_the_first_greeting"... pass`,
		`run "refuses_a_bad_name"... pass`,
		`run "warns_about_a_long_greeting"... pass`,
		"Success! 5 passed, 0 failed.",
	}, "*.state.json", "greeting.txt")
}
