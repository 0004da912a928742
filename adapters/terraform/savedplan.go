package terraform

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"

	"github.com/pierhq/pier/adapters/terraform/internal/tfclient"
	"github.com/pierhq/pier/adapters/terraform/internal/tfvalue"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
	"github.com/zclconf/go-cty/cty"
)

// A saved plan is a preview's plan as the bridge hands it to the host
// ([schema.PreviewResourceResponse.Plan]), which hands it back on the
// create or update it previewed, also when `pier apply PLANFILE` runs in
// another process long after: the bridge then applies it without asking
// the provider to plan again. Terraform plans a second time at apply
// because the first plan may hold values unknown then; a configuration
// fully known at plan is the same at apply, and a plan the provider made
// for it is one Terraform would accept as final (every known value equal,
// see planCache). The host only makes previews of changes whose inputs
// are known, and refuses a saved plan whose source, providers (their
// declarations and executables) or states changed since it was made.
//
// A saved plan fits a request only when its key, the digest of the
// request's plan key (createKey or updateKey: the type, the inputs and for
// an update the recorded object), is the request's; otherwise the bridge
// plans again, as without one. It holds the provider's planned state and
// private data and, for an update, the upgraded prior state: opaque
// provider data that may hold secrets, never logged.
//
// The encoding is base64 (standard, unpadded) of: a version byte, the
// 32-byte key digest, then each of planned, private and prior as a uvarint
// length and its bytes.
type savedPlan struct {
	key     [sha256.Size]byte
	planned []byte
	private []byte
	// prior is an update's upgraded prior state; nil for a create.
	prior []byte
}

// savedPlanVersion is the encoding's first byte, changed with it.
const savedPlanVersion = 1

func newSavedPlan(key string, planned, private, prior []byte) *savedPlan {
	return &savedPlan{key: sha256.Sum256([]byte(key)), planned: planned, private: private, prior: prior}
}

// fits reports whether the plan answers the request whose plan key is key.
func (p *savedPlan) fits(key string) bool { return p.key == sha256.Sum256([]byte(key)) }

func (p *savedPlan) encode() string {
	n := 1 + len(p.key) + 3*binary.MaxVarintLen64 + len(p.planned) + len(p.private) + len(p.prior)
	buf := make([]byte, 0, n)
	buf = append(buf, savedPlanVersion)
	buf = append(buf, p.key[:]...)
	for _, f := range [][]byte{p.planned, p.private, p.prior} {
		buf = binary.AppendUvarint(buf, uint64(len(f)))
		buf = append(buf, f...)
	}
	return base64.RawStdEncoding.EncodeToString(buf)
}

var errSavedPlanEncoding = errors.New("not a plan this bridge made")

func decodeSavedPlan(s string) (*savedPlan, error) {
	buf, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil || len(buf) < 1+sha256.Size || buf[0] != savedPlanVersion {
		return nil, errSavedPlanEncoding
	}
	p := &savedPlan{}
	copy(p.key[:], buf[1:])
	rest := buf[1+sha256.Size:]
	for _, f := range []*[]byte{&p.planned, &p.private, &p.prior} {
		n, size := binary.Uvarint(rest)
		if size <= 0 || n > uint64(len(rest)-size) {
			return nil, errSavedPlanEncoding
		}
		rest = rest[size:]
		if n > 0 {
			*f = rest[:n:n]
		}
		rest = rest[n:]
	}
	if len(rest) != 0 || len(p.planned) == 0 {
		return nil, errSavedPlanEncoding
	}
	return p, nil
}

// savedCreate is the create plan a saved plan holds, when it fits the
// create whose plan key is key; nil otherwise, and the create plans
// again. The configuration is converted from the inputs, as the
// preview's was, but not validated again: the preview validated these
// inputs with this provider (the host refuses a saved plan whose provider
// executable changed), and validation sees the configuration only.
func (b *Bridge) savedCreate(rt *resourceType, key string, inputs schema.Properties, saved string) *updatePlan {
	sp := b.savedFor(rt, key, saved)
	if sp == nil || sp.prior != nil {
		return nil
	}
	cfgData, planned, ok := b.savedConfig(rt, inputs, sp)
	if !ok {
		return nil
	}
	return &updatePlan{cfgData: cfgData, plan: &tfclient.PlanResponse{Planned: sp.planned, PlannedPrivate: sp.private}, planned: planned}
}

// savedUpdate is savedCreate for an update: the plan and the upgraded
// prior state the preview had, so that neither UpgradeResourceState nor
// PlanResourceChange is asked again. A preview saves no plan for an
// update that replaces, nor for one whose object was gone. Whatever does
// not fit is left to the update's own plan, which reports it.
func (b *Bridge) savedUpdate(rt *resourceType, key string, recorded, inputs schema.Properties, saved string) *updatePlan {
	sp := b.savedFor(rt, key, saved)
	if sp == nil || sp.prior == nil {
		return nil
	}
	_, m, err := splitOutputs(recorded)
	if err != nil {
		return nil
	}
	prior, err := tfvalue.Unmarshal(sp.prior, rt.ty())
	if err != nil || prior.IsNull() {
		b.log.Warn("a saved plan's prior state does not decode; planning again", logkey.Type, rt.name)
		return nil
	}
	cfgData, planned, ok := b.savedConfig(rt, inputs, sp)
	if !ok {
		return nil
	}
	return &updatePlan{
		prior: prior, priorPrivate: m.Private, priorData: sp.prior, cfgData: cfgData,
		plan: &tfclient.PlanResponse{Planned: sp.planned, PlannedPrivate: sp.private}, planned: planned,
	}
}

// savedFor decodes a saved plan and checks that it fits the request; nil
// when it does not. What it holds is never logged.
func (b *Bridge) savedFor(rt *resourceType, key, saved string) *savedPlan {
	sp, err := decodeSavedPlan(saved)
	if err != nil {
		b.log.Warn("the request's plan is "+err.Error()+"; planning again", logkey.Type, rt.name)
		return nil
	}
	if !sp.fits(key) {
		// Inputs or the recorded object that differ from the preview's
		// (a number spelled another way, say): plan as Terraform would.
		b.log.Debug("the request's plan is for another request; planning again", logkey.Type, rt.name)
		return nil
	}
	return sp
}

// savedConfig converts the inputs to the configuration sent with the
// saved plan, and decodes the planned state it holds.
func (b *Bridge) savedConfig(rt *resourceType, inputs schema.Properties, sp *savedPlan) ([]byte, cty.Value, bool) {
	cfg, err := tfvalue.Config(rt.schema.Block, inputs)
	if err != nil {
		return nil, cty.NilVal, false // the plan's own path reports it
	}
	cfgData, err := tfvalue.Marshal(cfg, rt.ty())
	if err != nil {
		return nil, cty.NilVal, false
	}
	planned, err := tfvalue.Unmarshal(sp.planned, rt.ty())
	if err != nil {
		b.log.Warn("a saved plan's planned state does not decode; planning again", logkey.Type, rt.name)
		return nil, cty.NilVal, false
	}
	return cfgData, planned, true
}
