package engine

import (
	"errors"
	"fmt"

	"github.com/pierhq/pier/host/source"
)

// ErrRefreshOnlyControls refuses a refresh-only plan that also replaces or
// targets: it changes nothing, so there is nothing to replace, and what it
// reads is chosen by RefreshTargets.
var ErrRefreshOnlyControls = errors.New("a refresh-only plan records what the reads find and changes nothing: it cannot replace or target; choose what to read with refresh targets")

// Validate checks the options before anything is planned, for every
// front end (pier plan's flags, the RPC service's request): the
// addresses must parse, and refresh-only excludes replace and target.
func (o PlanOptions) Validate() error {
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
