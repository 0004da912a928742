package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pierhq/pier/host/apply"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/planfile"
)

func writePlanFile(path string, o deployOptions, controls plan.Options, eng *engine.Engine, p *plan.Plan) error {
	ref, err := absoluteRef(o)
	if err != nil {
		return err
	}
	sp, err := planfile.New(version, ref, controls, eng, p)
	if err != nil {
		return err
	}
	return sp.Write(path)
}

// absoluteRef names the deployment by absolute paths: pier apply FILE
// may run from another directory, and must load the deployment the plan
// was made from, not whatever lies in its working directory.
func absoluteRef(o deployOptions) (planfile.Ref, error) {
	ref := planfile.Ref{Flake: o.Flake, Vars: o.Vars, EnvVars: o.EnvVars}
	if o.Flake == "" {
		dir, err := filepath.Abs(o.Dir)
		if err != nil {
			return ref, fmt.Errorf("deployment directory %s: %w", o.Dir, err)
		}
		ref.Dir = dir
	} else if path, attr, hasAttr := strings.Cut(o.Flake, "#"); path != "" {
		// A local flake path (not a flake reference such as github:…).
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			abs, err := filepath.Abs(path)
			if err != nil {
				return ref, fmt.Errorf("flake %s: %w", o.Flake, err)
			}
			ref.Flake = abs
			if hasAttr {
				ref.Flake += "#" + attr
			}
		}
	}
	for _, f := range o.VarFiles {
		abs, err := filepath.Abs(f)
		if err != nil {
			return ref, fmt.Errorf("variable file %s: %w", f, err)
		}
		ref.VarFiles = append(ref.VarFiles, abs)
	}
	return ref, nil
}

// staleError says a saved plan no longer matches the world.
type staleError struct{ msg string }

func (e *staleError) Error() string { return e.msg }

// checkSavedSource and checkSavedProviders are the saved plan's checks
// (host/planfile, which the RPC service runs too), with the CLI's exit
// code for a stale plan.
func checkSavedSource(path string, saved *planfile.Plan) error {
	return withStaleExit(saved.CheckSource(path))
}

func checkSavedProviders(path string, eng *engine.Engine, saved *planfile.Plan, g *execgraph.Graph) error {
	return withStaleExit(saved.CheckProviders(path, eng, g))
}

func withStaleExit(err error) error {
	var se *planfile.StaleError
	if errors.As(err, &se) {
		return &staleError{se.Msg}
	}
	return err
}

// staleStates turns the engine's refusal of moved states into the saved
// plan's exit code.
func staleStates(path string, err error) error {
	var moved *apply.StaleStateError
	if errors.As(err, &moved) {
		return &staleError{fmt.Sprintf("saved plan %s is stale: %v; run pier plan again", path, moved)}
	}
	return err
}
