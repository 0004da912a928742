package rpcapi

import (
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/planfile"
	"github.com/pierhq/pier/host/session"
)

// savedPlanBytes encodes a plan in the format `pier plan -out` writes
// (host/planfile), so that `pier apply FILE` carries out a plan made over
// the RPC. The bytes may hold inputs: the client must keep them as a
// secret.
func savedPlanBytes(version string, d *session.Deployment, eng *engine.Engine, p *plan.Plan, opts plan.Options) ([]byte, error) {
	ref, err := d.Ref()
	if err != nil {
		return nil, err
	}
	sp, err := planfile.New(version, planfile.Ref{Dir: ref.Dir, Flake: ref.Flake, Vars: ref.Vars, VarFiles: ref.VarFiles}, opts, eng, p)
	if err != nil {
		return nil, err
	}
	return sp.Encode()
}
