package plan

import (
	"errors"
	"fmt"

	"github.com/pierhq/pier/host/source"
)

// Options steer a plan, as Terraform's -replace and -target do.
type Options struct {
	// Replace are addresses to replace although they are unchanged.
	Replace []string `json:"replace,omitempty"`
	// Targets limit the plan to these addresses (an address also names
	// the instances and members below it) and what they depend on.
	Targets []string `json:"targets,omitempty"`
	// Refresh reads the recorded objects first (all, or those under
	// RefreshTargets) and plans against them; see refresh.go.
	Refresh        bool     `json:"refresh,omitempty"`
	RefreshTargets []string `json:"refreshTargets,omitempty"`
	// RefreshOnly reads as Refresh does (all, or RefreshTargets) and
	// plans nothing but recording what the reads found, as Terraform's
	// -refresh-only; see refresh_only.go.
	RefreshOnly bool `json:"refreshOnly,omitempty"`
	// NoRefresh reads nothing, whatever a block or provider's
	// refresh = true says (--refresh=false, as Terraform's
	// -refresh=false).
	NoRefresh bool `json:"noRefresh,omitempty"`
}

// ErrRefreshOnlyControls refuses a refresh-only plan that also replaces or
// targets: it changes nothing, so there is nothing to replace, and what it
// reads is chosen by RefreshTargets.
var ErrRefreshOnlyControls = errors.New("a refresh-only plan records what the reads find and changes nothing: it cannot replace or target; choose what to read with refresh targets")

// Validate checks the options before anything is planned, for every
// front end (pier plan's flags, the RPC service's request): the
// addresses must parse, and refresh-only excludes replace and target.
func (o Options) Validate() error {
	if o.RefreshOnly && (len(o.Replace) > 0 || len(o.Targets) > 0) {
		return ErrRefreshOnlyControls
	}
	for _, list := range [][]string{o.Replace, o.Targets, o.RefreshTargets} {
		for _, a := range list {
			if _, err := source.ParseAddress(a); err != nil {
				return fmt.Errorf("%q is not a resource address: %v", a, err)
			}
		}
	}
	return nil
}
