package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/planfile"
)

func writePlanFile(path string, o deployOptions, controls engine.PlanOptions, p *engine.Plan) error {
	ref, err := absoluteRef(o)
	if err != nil {
		return err
	}
	sp, err := planfile.New(version, ref, controls, p)
	if err != nil {
		return err
	}
	return sp.Write(path)
}

// absoluteRef names the deployment by absolute paths: pier apply FILE
// may run from another directory, and must load the deployment the plan
// was made from, not whatever lies in its working directory.
func absoluteRef(o deployOptions) (planfile.Ref, error) {
	ref := planfile.Ref{Flake: o.Flake, Vars: o.Vars}
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

// checkSavedPlan compares a fresh plan with a saved one. A saved plan is
// carried out exactly or not at all: if any state moved or the deployment
// now plans something else, apply refuses.
// checkSavedSource refuses a saved plan whose deployment files changed
// since it was made. It runs before anything is planned or started.
func checkSavedSource(path string, saved *planfile.Plan) error {
	fp, err := planfile.Fingerprint(saved.Deployment)
	if err != nil {
		return err
	}
	if fp != saved.Source {
		return &staleError{fmt.Sprintf("saved plan %s no longer matches the deployment: its source files have changed since the plan was made; run pier plan again", path)}
	}
	return nil
}

func checkSavedPlan(path string, saved *planfile.Plan, now *engine.Plan) error {
	g, err := now.Graph()
	if err != nil {
		return err
	}
	if moved := engine.MovedStates(saved.Graph, g); len(moved) > 0 {
		return &staleError{fmt.Sprintf("saved plan %s is stale: the state held by %v has changed since the plan was made; run pier plan again", path, moved)}
	}
	if moved := engine.MovedProviders(saved.Graph, g); len(moved) > 0 {
		return &staleError{fmt.Sprintf("saved plan %s no longer matches the deployment: the declaration of provider %v has changed since the plan was made; run pier plan again", path, moved)}
	}
	if diff := engine.SameOperations(saved.Graph, g); diff != "" {
		return &staleError{fmt.Sprintf("saved plan %s no longer matches the deployment: %s; run pier plan again", path, diff)}
	}
	return nil
}
