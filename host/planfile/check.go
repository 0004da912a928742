package planfile

import (
	"fmt"
	"strings"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
)

// StaleError says a saved plan no longer matches the world it was made
// in; make the plan again.
type StaleError struct{ Msg string }

func (e *StaleError) Error() string { return e.Msg }

// CheckSource refuses a saved plan whose deployment files changed since it
// was made; name is how messages call the plan. It runs before anything is
// planned or started.
func (sp *Plan) CheckSource(name string) error {
	fp, err := Fingerprint(sp.Deployment)
	if err != nil {
		return err
	}
	if fp != sp.Source {
		return &StaleError{fmt.Sprintf("saved plan %s no longer matches the deployment: its source files have changed since the plan was made; run pier plan again", name)}
	}
	return nil
}

// CheckProviders refuses a saved plan whose providers are not the ones it
// was made with: a declaration that differs, or an executable whose
// content changed. It runs before any provider starts.
func (sp *Plan) CheckProviders(name string, eng *engine.Engine, g *execgraph.Graph) error {
	moved, err := eng.MovedProviders(g, sp.Providers)
	if err != nil {
		return err
	}
	if len(moved) > 0 {
		return &StaleError{fmt.Sprintf("saved plan %s no longer matches the deployment: %s since the plan was made; run pier plan again", name, strings.Join(moved, "; "))}
	}
	return nil
}
