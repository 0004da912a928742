package rpcapi

import (
	"encoding/json"

	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/session"
)

// savedPlanVersion and savedPlan are the shape of the file `pier plan
// -out` writes (cmd/pier/planfile.go, format 2), so that `pier apply
// FILE` carries out a plan made over the RPC. They are kept in step by
// rpcapi/client's TestSavedPlanAppliesWithPierApply, which applies the
// bytes with the real pier.
const savedPlanVersion = 2

type savedPlan struct {
	FormatVersion int           `json:"format_version"`
	PierVersion   string        `json:"pier_version"`
	Deployment    savedRef      `json:"deployment"`
	Destroy       bool          `json:"destroy,omitempty"`
	Graph         *engine.Graph `json:"graph"`
}

type savedRef struct {
	Dir      string   `json:"dir,omitempty"`
	Flake    string   `json:"flake,omitempty"`
	Vars     []string `json:"vars,omitempty"`
	VarFiles []string `json:"var_files,omitempty"`
}

// savedPlanBytes encodes a plan as `pier apply FILE` reads it. The bytes
// may hold inputs: the client must keep them as a secret.
func savedPlanBytes(version string, d *session.Deployment, p *engine.Plan) ([]byte, error) {
	g, err := p.Graph()
	if err != nil {
		return nil, err
	}
	ref, err := d.Ref()
	if err != nil {
		return nil, err
	}
	sp := savedPlan{FormatVersion: savedPlanVersion, PierVersion: version, Destroy: p.Destroy, Graph: g,
		Deployment: savedRef{Dir: ref.Dir, Flake: ref.Flake, Vars: ref.Vars, VarFiles: ref.VarFiles}}
	b, err := json.MarshalIndent(sp, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
