package plan_test

import (
	"testing"

	"github.com/pierhq/pier/host/plan"
)

func TestConditionCheckable(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"web":                         "resource.web",
		"web[0]":                      "resource.web",
		`web["a"]`:                    "resource.web",
		`module.site["blog"].page[2]`: `module.site["blog"].resource.page`,
		"module.a[0].module.b.c":      "module.a[0].module.b.resource.c",
		"app.db":                      "deployment.app.resource.db",
	}
	for addr, want := range tests {
		t.Run(addr, func(t *testing.T) {
			t.Parallel()
			if got := (&plan.ConditionError{Address: addr}).Checkable(); got != want {
				t.Errorf("Checkable() = %q, want %q", got, want)
			}
		})
	}
}
