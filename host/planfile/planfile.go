// Package planfile is the saved-plan format: what `pier plan -out FILE`
// and the RPC service's Plan write, and what `pier apply FILE` and
// `pier show FILE` read. One package, so that every writer and reader
// agree on one version.
package planfile

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
)

// Version is bumped whenever the saved plan's shape changes: 2 added
// provider fingerprints and absolute deployment paths, 3 the source
// fingerprint, the plan controls and deposed objects, 4 the execution
// graph (host/execgraph) that apply runs and the providers' executable
// hashes.
const Version = 4

// Plan is a saved plan: the execution graph apply carries out, what it
// checks first, and how to load the deployment for what the graph leaves
// to run time. It may hold variable values, inputs and provider
// configurations, so it is written 0600.
type Plan struct {
	FormatVersion int    `json:"format_version"`
	PierVersion   string `json:"pier_version"`
	Deployment    Ref    `json:"deployment"`
	Destroy       bool   `json:"destroy,omitempty"`
	// Controls are the plan's --replace and --target, for humans reading
	// the file: the graph holds what apply uses of them.
	Controls engine.PlanOptions `json:"controls,omitempty"`
	// Source fingerprints the deployment's files; see [Fingerprint].
	Source string `json:"source,omitempty"`
	// Providers are the checks of the providers the graph starts.
	Providers map[string]engine.ProviderCheck `json:"providers,omitempty"`
	// Graph is the execution graph, as engine.EncodeGraph writes it.
	Graph json.RawMessage `json:"graph"`
	// Changes and Warnings are the plan as pier plan printed it, for pier
	// show.
	Changes  []engine.PlannedChange `json:"changes"`
	Warnings []string               `json:"warnings,omitempty"`
}

// Ref says where a saved plan's deployment came from, by absolute paths:
// pier apply FILE may run from another directory.
type Ref struct {
	Dir      string   `json:"dir,omitempty"`
	Flake    string   `json:"flake,omitempty"`
	Vars     []string `json:"vars,omitempty"`
	VarFiles []string `json:"var_files,omitempty"`
}

// New makes the saved form of p, for the deployment ref names, with the
// controls it was planned with; eng is the engine that planned it, which
// checks the providers.
func New(pierVersion string, ref Ref, controls engine.PlanOptions, eng *engine.Engine, p *engine.Plan) (*Plan, error) {
	g, err := p.Graph()
	if err != nil {
		return nil, err
	}
	raw, err := engine.EncodeGraph(g)
	if err != nil {
		return nil, err
	}
	checks, err := eng.ProviderChecks(g)
	if err != nil {
		return nil, err
	}
	fp, err := Fingerprint(ref)
	if err != nil {
		return nil, err
	}
	return &Plan{FormatVersion: Version, PierVersion: pierVersion, Destroy: p.Destroy, Graph: raw, Deployment: ref,
		Controls: controls, Source: fp, Providers: checks, Changes: p.Planned(), Warnings: p.Warnings}, nil
}

// ExecGraph decodes the saved execution graph, checking its shape.
func (sp *Plan) ExecGraph() (*execgraph.Graph, error) {
	return engine.DecodeGraph(sp.Graph)
}

// Encode returns the bytes of a saved plan file.
func (sp *Plan) Encode() ([]byte, error) {
	data, err := json.MarshalIndent(sp, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Write writes sp to path, mode 0600 even over an existing file.
func (sp *Plan) Write(path string) error {
	data, err := sp.Encode()
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
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write plan file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write plan file %s: %w", path, err)
	}
	return nil
}

// Read reads a saved plan, refusing another format version.
func Read(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read plan file: %w", err)
	}
	var sp Plan
	if err := json.Unmarshal(data, &sp); err != nil {
		return nil, fmt.Errorf("read plan file %s: %w", path, err)
	}
	if sp.FormatVersion != Version || len(sp.Graph) == 0 {
		return nil, fmt.Errorf("read plan file %s: format version %d is not %d; make the plan again with this pier", path, sp.FormatVersion, Version)
	}
	return &sp, nil
}
