package plan

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/internal/proc"
)

// checkExecutables checks, at plan, that every provider executable the
// apply will start exists and may be executed, so that a missing one
// fails the plan, naming the provider block, instead of the apply after
// it has changed other resources. Only the providers of resources that
// change are checked: an unchanged resource starts no provider. For a
// Terraform provider the plugin binary is checked (the bridge is pier).
func checkExecutables(e *engine.Engine, p *Plan) error {
	names := map[string]bool{}
	for _, c := range p.Changes {
		if c.StateHandler || c.Structural || c.Action == execgraph.ActionNoOp {
			continue
		}
		if c.Resource != nil {
			names[c.Resource.Provider] = true
		}
		if c.Prior != nil && c.Action != execgraph.ActionUpdate {
			names[c.Prior.Entry.Provider] = true // destroys the old object
		}
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(names)) {
		d := e.Providers().Decl(name)
		if d == nil {
			continue // no longer declared: the plan's note says so
		}
		var exe string
		switch {
		case d.Builtin != "":
			continue
		case d.Terraform != "":
			exe = d.Terraform
		default:
			exe = d.Executable
		}
		if _, err := proc.Find(exe, e.Dir()); err != nil {
			pos := ""
			if s := d.Range.String(); s != "" {
				pos = s + ": "
			}
			errs = append(errs, fmt.Errorf("%sprovider %s: %w", pos, name, err))
		}
	}
	return errors.Join(errs...)
}
