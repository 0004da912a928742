package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/pierhq/pier/host/engine"
)

// planFileVersion is bumped whenever the saved plan's shape changes.
const planFileVersion = 1

// savedPlan is what `pier plan -out FILE` writes: the execution graph, the
// state positions it was made against, and how to load the deployment
// again. It may hold variable values and inputs, so it is written 0600.
type savedPlan struct {
	FormatVersion int           `json:"format_version"`
	PierVersion   string        `json:"pier_version"`
	Deployment    deploymentRef `json:"deployment"`
	Destroy       bool          `json:"destroy,omitempty"`
	Graph         *engine.Graph `json:"graph"`
}

// deploymentRef says where a saved plan's deployment came from.
type deploymentRef struct {
	Dir      string   `json:"dir,omitempty"`
	Flake    string   `json:"flake,omitempty"`
	Vars     []string `json:"vars,omitempty"`
	VarFiles []string `json:"var_files,omitempty"`
}

func writePlanFile(path string, o deployOptions, p *engine.Plan) error {
	g, err := p.Graph()
	if err != nil {
		return err
	}
	sp := savedPlan{FormatVersion: planFileVersion, PierVersion: version, Destroy: p.Destroy, Graph: g,
		Deployment: deploymentRef{Dir: o.Dir, Flake: o.Flake, Vars: o.Vars, VarFiles: o.VarFiles}}
	data, err := json.MarshalIndent(sp, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o600)
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
func checkSavedPlan(path string, saved *savedPlan, now *engine.Plan) error {
	g, err := now.Graph()
	if err != nil {
		return err
	}
	if moved := engine.MovedStates(saved.Graph, g); len(moved) > 0 {
		return &staleError{fmt.Sprintf("saved plan %s is stale: the state held by %v has changed since the plan was made; run pier plan again", path, moved)}
	}
	if diff := engine.SameOperations(saved.Graph, g); diff != "" {
		return &staleError{fmt.Sprintf("saved plan %s no longer matches the deployment: %s; run pier plan again", path, diff)}
	}
	return nil
}
