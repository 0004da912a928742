package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pierhq/pier/host/engine"
)

// planFileVersion is bumped whenever the saved plan's shape changes: 2
// added provider fingerprints and absolute deployment paths, 3 the
// source fingerprint, the plan controls and deposed objects.
const planFileVersion = 3

// savedPlan is what `pier plan -out FILE` writes: the execution graph, the
// state positions it was made against, and how to load the deployment
// again. It may hold variable values and inputs, so it is written 0600.
type savedPlan struct {
	FormatVersion int           `json:"format_version"`
	PierVersion   string        `json:"pier_version"`
	Deployment    deploymentRef `json:"deployment"`
	Destroy       bool          `json:"destroy,omitempty"`
	// Controls are the plan's --replace and --target: apply plans with
	// them again to check the plan.
	Controls engine.PlanOptions `json:"controls,omitempty"`
	// Source fingerprints the deployment's files; see sourceFingerprint.
	Source string        `json:"source,omitempty"`
	Graph  *engine.Graph `json:"graph"`
	// Changes and Warnings are the plan as pier plan printed it, for pier
	// show.
	Changes  []engine.PlannedChange `json:"changes"`
	Warnings []string               `json:"warnings,omitempty"`
}

// deploymentRef says where a saved plan's deployment came from.
type deploymentRef struct {
	Dir      string   `json:"dir,omitempty"`
	Flake    string   `json:"flake,omitempty"`
	Vars     []string `json:"vars,omitempty"`
	VarFiles []string `json:"var_files,omitempty"`
}

func writePlanFile(path string, o deployOptions, controls engine.PlanOptions, p *engine.Plan) error {
	g, err := p.Graph()
	if err != nil {
		return err
	}
	ref, err := absoluteRef(o)
	if err != nil {
		return err
	}
	fp, err := sourceFingerprint(ref)
	if err != nil {
		return err
	}
	sp := savedPlan{FormatVersion: planFileVersion, PierVersion: version, Destroy: p.Destroy, Graph: g, Deployment: ref, Controls: controls, Source: fp, Changes: p.Planned(), Warnings: p.Warnings}
	data, err := json.MarshalIndent(sp, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("write plan file: %w", err)
	}
	// An existing file keeps its mode on open: narrow it before the plan,
	// which may hold secrets, is in it.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("write plan file %s: %w", path, err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("write plan file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write plan file %s: %w", path, err)
	}
	return nil
}

// absoluteRef names the deployment by absolute paths: pier apply FILE
// may run from another directory, and must load the deployment the plan
// was made from, not whatever lies in its working directory.
func absoluteRef(o deployOptions) (deploymentRef, error) {
	ref := deploymentRef{Flake: o.Flake, Vars: o.Vars}
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

func readPlanFile(path string) (*savedPlan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read plan file: %w", err)
	}
	var sp savedPlan
	if err := json.Unmarshal(data, &sp); err != nil {
		return nil, fmt.Errorf("read plan file %s: %w", path, err)
	}
	if sp.FormatVersion != planFileVersion || sp.Graph == nil {
		return nil, fmt.Errorf("read plan file %s: format version %d is not %d; make the plan again with this pier", path, sp.FormatVersion, planFileVersion)
	}
	return &sp, nil
}

// staleError says a saved plan no longer matches the world.
type staleError struct{ msg string }

func (e *staleError) Error() string { return e.msg }

// checkSavedPlan compares a fresh plan with a saved one. A saved plan is
// carried out exactly or not at all: if any state moved or the deployment
// now plans something else, apply refuses.
// checkSavedSource refuses a saved plan whose deployment files changed
// since it was made. It runs before anything is planned or started.
func checkSavedSource(path string, saved *savedPlan) error {
	fp, err := sourceFingerprint(saved.Deployment)
	if err != nil {
		return err
	}
	if fp != saved.Source {
		return &staleError{fmt.Sprintf("saved plan %s no longer matches the deployment: its source files have changed since the plan was made; run pier plan again", path)}
	}
	return nil
}

func checkSavedPlan(path string, saved *savedPlan, now *engine.Plan) error {
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
