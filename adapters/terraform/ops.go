package terraform

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pierhq/pier/adapters/terraform/internal/tfclient"
	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/pierhq/pier/adapters/terraform/internal/tfvalue"
	"github.com/pierhq/pier/providersdk"
	"github.com/pierhq/pier/schema"
	"github.com/pierhq/pier/schema/logkey"
	"github.com/zclconf/go-cty/cty"
)

// Create implements [providersdk.Handler]: plan from a null prior, then
// apply. Data sources are read instead.
func (b *Bridge) Create(ctx context.Context, req *schema.CreateResourceRequest) (_ *schema.CreateResourceResponse, err error) {
	ctx, cancel := b.op(ctx)
	defer cancel()
	defer func() { err = b.timedOut(ctx, err) }()
	rt, err := b.ready(ctx, req.Type)
	if err != nil {
		return nil, err
	}
	if rt.dataSource {
		out, err := b.readDataSource(ctx, rt, req.InputProperties)
		if err != nil {
			return nil, err
		}
		return &schema.CreateResourceResponse{OutputProperties: out}, nil
	}
	if !req.IsStateful {
		return nil, fmt.Errorf("provider %s: %w", b.client.Name(), errNotStateful)
	}
	out, err := b.create(ctx, rt, req.InputProperties, req.Plan)
	if err != nil {
		return nil, err
	}
	return &schema.CreateResourceResponse{OutputProperties: out}, nil
}

// Update implements [providersdk.Handler]: upgrade the recorded state, plan,
// then apply, in place only: an update whose plan requires replacement is
// refused with a [*ReplaceRequiredError] (the plan, told by Preview, has
// the engine destroy and create instead).
func (b *Bridge) Update(ctx context.Context, req *schema.UpdateResourceRequest) (_ *schema.UpdateResourceResponse, err error) {
	ctx, cancel := b.op(ctx)
	defer cancel()
	defer func() { err = b.timedOut(ctx, err) }()
	rt, err := b.ready(ctx, req.Resource.Type)
	if err != nil {
		return nil, err
	}
	var out schema.Properties
	if rt.dataSource {
		out, err = b.readDataSource(ctx, rt, req.InputProperties)
	} else {
		out, err = b.update(ctx, rt, req.Resource.OutputProperties, req.InputProperties, req.Plan)
	}
	if err != nil {
		return nil, err
	}
	return &schema.UpdateResourceResponse{OutputProperties: out}, nil
}

// Destroy implements [providersdk.Destroyer]: plan and apply to null.
// Destroying a data source does nothing.
func (b *Bridge) Destroy(ctx context.Context, req *schema.DestroyResourceRequest) (_ *schema.DestroyResourceResponse, err error) {
	ctx, cancel := b.op(ctx)
	defer cancel()
	defer func() { err = b.timedOut(ctx, err) }()
	rt, err := b.ready(ctx, req.Resource.Type)
	if err != nil {
		return nil, err
	}
	if rt.dataSource {
		return &schema.DestroyResourceResponse{}, nil
	}
	prior, private, err := b.prior(ctx, rt, req.Resource.OutputProperties)
	if err != nil {
		return nil, err
	}
	if err := b.destroy(ctx, rt, prior, private); err != nil {
		return nil, err
	}
	return &schema.DestroyResourceResponse{}, nil
}

// Read implements [providersdk.Reader]: ReadResource on the upgraded
// recorded state; a null result means the object is gone. A data source is
// read again from its recorded inputs.
func (b *Bridge) Read(ctx context.Context, req *schema.ReadResourceRequest) (_ *schema.ReadResourceResponse, err error) {
	ctx, cancel := b.op(ctx)
	defer cancel()
	defer func() { err = b.timedOut(ctx, err) }()
	rt, err := b.ready(ctx, req.Resource.Type)
	if err != nil {
		return nil, err
	}
	if rt.dataSource {
		out, err := b.readDataSource(ctx, rt, req.Resource.InputProperties)
		if err != nil {
			return nil, err
		}
		return &schema.ReadResourceResponse{Exists: true, OutputProperties: out}, nil
	}
	prior, private, err := b.prior(ctx, rt, req.Resource.OutputProperties)
	if err != nil {
		return nil, err
	}
	state, newPrivate, err := b.read(ctx, rt, prior, private)
	if err != nil {
		return nil, err
	}
	if state.IsNull() {
		return &schema.ReadResourceResponse{Exists: false}, nil
	}
	out, err := outputs(rt, state, newPrivate)
	if err != nil {
		return nil, err
	}
	return &schema.ReadResourceResponse{Exists: true, OutputProperties: out}, nil
}

// Import implements [providersdk.Importer]: ImportResourceState, then
// ReadResource. The proposed inputs are the imported object's configurable
// attributes.
func (b *Bridge) Import(ctx context.Context, req *schema.ImportResourceRequest) (_ *schema.ImportResourceResponse, err error) {
	ctx, cancel := b.op(ctx)
	defer cancel()
	defer func() { err = b.timedOut(ctx, err) }()
	rt, err := b.ready(ctx, req.Type)
	if err != nil {
		return nil, err
	}
	if rt.dataSource {
		return nil, fmt.Errorf("data sources cannot be imported: they are read, not managed")
	}
	imported, diags, err := b.client.ImportResourceState(ctx, rt.name, req.ID)
	if err != nil {
		return nil, err
	}
	if err := b.diagnostics("import resource state", rt.name, diags); err != nil {
		return nil, err
	}
	var found *tfclient.ImportedResource
	for i := range imported {
		if imported[i].TypeName == "" || imported[i].TypeName == rt.name {
			found = &imported[i]
			break
		}
	}
	notFound := fmt.Errorf("provider %s found no %s with id %q to import", b.client.Name(), rt.name, req.ID)
	if found == nil {
		return nil, notFound
	}
	state, err := tfvalue.Unmarshal(found.State, rt.ty())
	if err != nil {
		return nil, fmt.Errorf("provider %s: import resource state: decode: %w", b.client.Name(), err)
	}
	if state.IsNull() {
		return nil, notFound
	}
	state, private, err := b.read(ctx, rt, state, found.Private)
	if err != nil {
		return nil, err
	}
	if state.IsNull() {
		return nil, notFound
	}
	out, err := outputs(rt, state, private)
	if err != nil {
		return nil, err
	}
	in, err := tfvalue.Inputs(rt.schema.Block, state)
	if err != nil {
		return nil, fmt.Errorf("derive inputs: %w", err)
	}
	return &schema.ImportResourceResponse{InputProperties: in, OutputProperties: out}, nil
}

// ready resolves the type and makes sure the provider is configured.
func (b *Bridge) ready(ctx context.Context, typ string) (*resourceType, error) {
	rt, err := b.lookup(ctx, typ)
	if err != nil {
		return nil, err
	}
	if err := b.configure(ctx); err != nil {
		return nil, err
	}
	return rt, nil
}

// resourceConfig converts inputs to the configuration value and validates it with
// the provider.
func (b *Bridge) resourceConfig(ctx context.Context, rt *resourceType, inputs schema.Properties) (cty.Value, []byte, error) {
	cfg, err := tfvalue.Config(rt.schema.Block, inputs)
	if err != nil {
		return cty.NilVal, nil, fmt.Errorf("provider %s: inputs: %w", b.client.Name(), err)
	}
	data, err := tfvalue.Marshal(cfg, rt.ty())
	if err != nil {
		return cty.NilVal, nil, fmt.Errorf("provider %s: inputs: encode: %w", b.client.Name(), err)
	}
	// A preview validated this very configuration moments ago when the
	// create or update lands on the same bridge: the answer cannot have
	// changed (validation sees the configuration only), so ask once.
	key := rt.modeName() + "\x00" + rt.name + "\x00" + string(data)
	if b.validated[key] {
		return cfg, data, nil
	}
	var diags tfproto.Diagnostics
	if rt.dataSource {
		diags, err = b.client.ValidateDataSourceConfig(ctx, rt.name, data)
	} else {
		diags, err = b.client.ValidateResourceConfig(ctx, rt.name, data)
	}
	if err != nil {
		return cty.NilVal, nil, err
	}
	if err := b.diagnostics("validate "+rt.modeName()+" config", rt.name, diags); err != nil {
		return cty.NilVal, nil, err
	}
	if len(diags) == 0 { // warnings are logged each time, as they would be
		if b.validated == nil || len(b.validated) >= maxValidated {
			b.validated = map[string]bool{}
		}
		b.validated[key] = true
	}
	return cfg, data, nil
}

// maxValidated bounds the configurations a bridge remembers as valid; a
// preview and its apply come close together, so a small window keeps
// nearly every repeat.
const maxValidated = 4096

// create plans from a null prior and applies. The plan a preview made
// is taken instead when there is one for these inputs: in this bridge's
// cache, or saved (from the preview's response, see savedPlan).
func (b *Bridge) create(ctx context.Context, rt *resourceType, inputs schema.Properties, saved string) (schema.Properties, error) {
	nullData, err := rt.nullData()
	if err != nil {
		return nil, err
	}
	key, keyed := createKey(rt, inputs)
	var p *updatePlan
	if keyed {
		p = b.plans.take(key)
		if p == nil && saved != "" {
			p = b.savedCreate(rt, key, inputs, saved)
		}
	}
	if p == nil {
		cfg, cfgData, err := b.resourceConfig(ctx, rt, inputs)
		if err != nil {
			return nil, err
		}
		plan, planned, err := b.plan(ctx, rt, cfg, planArgs{prior: nullData, proposed: cfgData, config: cfgData})
		if err != nil {
			return nil, err
		}
		p = &updatePlan{cfgData: cfgData, plan: plan, planned: planned}
	}
	cfgData, plan, planned := p.cfgData, p.plan, p.planned
	state, private, err := b.apply(ctx, rt, planned, &tfclient.ApplyRequest{
		TypeName: rt.name, Prior: nullData, Planned: plan.Planned, Config: cfgData, PlannedPrivate: plan.PlannedPrivate,
	})
	if err != nil {
		return nil, err
	}
	if state.IsNull() {
		return nil, fmt.Errorf("provider %s: apply resource change: returned no object after creating it (this is a bug in the provider)", b.client.Name())
	}
	return outputs(rt, state, private)
}

// updatePlan is what an update plans: the upgraded prior object and the
// provider's plan against the new inputs. prior is null when the recorded
// object is gone, and the rest is then unset.
type updatePlan struct {
	prior              cty.Value
	priorPrivate       []byte
	priorData, cfgData []byte
	plan               *tfclient.PlanResponse
	planned            cty.Value
	// replace are the requires_replace paths whose value the plan changes
	// (or may change): non-empty means the update is a replacement.
	replace []tfproto.AttributePath
}

// planUpdate is the part of an update that changes nothing real:
// UpgradeResourceState on the recorded state, then PlanResourceChange.
// Update and Preview share it, so a preview says what an update would do.
//
// The configuration is validated first, as terraform validate does before
// anything else, and needs no configured provider; the rest does.
func (b *Bridge) planUpdate(ctx context.Context, rt *resourceType, recorded, inputs schema.Properties) (*updatePlan, error) {
	cfg, cfgData, err := b.resourceConfig(ctx, rt, inputs)
	if err != nil {
		return nil, err
	}
	if err := b.configure(ctx); err != nil {
		return nil, err
	}
	prior, priorPrivate, err := b.prior(ctx, rt, recorded)
	if err != nil {
		return nil, err
	}
	u := &updatePlan{prior: prior, priorPrivate: priorPrivate}
	if prior.IsNull() {
		return u, nil
	}
	priorData, err := tfvalue.Marshal(prior, rt.ty())
	if err != nil {
		return nil, err
	}
	proposedData, err := tfvalue.Marshal(proposedNew(rt.schema.Block, prior, cfg), rt.ty())
	if err != nil {
		return nil, fmt.Errorf("encode proposed state: %w", err)
	}
	plan, planned, err := b.plan(ctx, rt, cfg, planArgs{prior: priorData, proposed: proposedData, config: cfgData, private: priorPrivate})
	if err != nil {
		return nil, err
	}
	u.priorData, u.cfgData, u.plan, u.planned = priorData, cfgData, plan, planned
	if u.replace, err = requiresReplace(prior, planned, plan.RequiresReplace); err != nil {
		return nil, fmt.Errorf("provider %s: plan resource change: %w", b.client.Name(), err)
	}
	return u, nil
}

// requiresReplace decides, as Terraform does, which of the paths a plan
// lists as requires_replace force a replacement: those whose value differs
// between the prior and the planned state, or may differ because the
// planned value is unknown. A listed path whose value the plan keeps is no
// reason to replace: providers list attributes that merely could force one
// (time_rotating lists rfc3339 on every plan), and replacing on them would
// destroy objects an update keeps.
func requiresReplace(prior, planned cty.Value, paths []tfproto.AttributePath) ([]tfproto.AttributePath, error) {
	if prior.IsNull() {
		return nil, nil // a create replaces nothing
	}
	var out []tfproto.AttributePath
	for _, p := range paths {
		cp := ctyPath(p)
		before, errBefore := cp.Apply(prior)
		after, errAfter := cp.Apply(planned)
		switch {
		case errBefore != nil && errAfter != nil:
			return nil, fmt.Errorf("requires replacement of %s, which is in neither the prior nor the planned object (this is a bug in the provider)", p)
		case errBefore != nil:
			before = cty.NullVal(after.Type())
		case errAfter != nil:
			after = cty.NullVal(before.Type())
		}
		before, _ = before.UnmarkDeep()
		after, _ = after.UnmarkDeep()
		if eq := after.Equals(before); !eq.IsKnown() || eq.False() {
			out = append(out, p)
		}
	}
	return out, nil
}

// replaceCauses names, of the paths that force a replacement, those the
// new inputs change to a known value. Providers also list computed
// attributes that become unknown only because of the replacement
// (time_static lists rfc3339 beside triggers); those are its consequence,
// not its cause. When no path qualifies, all are given, so a replacement
// always names something.
func replaceCauses(planned cty.Value, paths []tfproto.AttributePath) []string {
	var causes, all []string
	for _, p := range paths {
		all = append(all, p.String())
		if after, err := ctyPath(p).Apply(planned); err != nil || after.IsWhollyKnown() {
			causes = append(causes, p.String())
		}
	}
	if len(causes) == 0 {
		return all
	}
	return causes
}

// ctyPath converts a plugin protocol path to a cty path.
func ctyPath(p tfproto.AttributePath) cty.Path {
	out := make(cty.Path, 0, len(p))
	for _, s := range p {
		switch s.Kind {
		case tfproto.StepAttribute:
			out = append(out, cty.GetAttrStep{Name: s.Name})
		case tfproto.StepKeyString:
			out = append(out, cty.IndexStep{Key: cty.StringVal(s.Key)})
		case tfproto.StepKeyInt:
			out = append(out, cty.IndexStep{Key: cty.NumberIntVal(s.Int)})
		}
	}
	return out
}

// ReplaceRequiredError is an update refused because the provider's plan
// replaces the object. pier carries out a replacement as its own recorded
// steps (destroy, record, create, record), never inside one update, so
// that state never records an object that is gone.
type ReplaceRequiredError struct {
	Provider, Type string
	Paths          []string
}

func (e *ReplaceRequiredError) Error() string {
	verb := "forces"
	if len(e.Paths) > 1 {
		verb = "force"
	}
	return fmt.Sprintf("provider %s: cannot update this %s in place: %s %s a new object; pier replaces an object as a destroy and a create of its own, which the plan shows: run pier plan again", e.Provider, e.Type, strings.Join(e.Paths, ", "), verb)
}

// update plans and applies in place, taking a preview's plan as create
// does.
func (b *Bridge) update(ctx context.Context, rt *resourceType, recorded, inputs schema.Properties, saved string) (schema.Properties, error) {
	var u *updatePlan
	if key, ok := updateKey(rt, recorded, inputs); ok {
		u = b.plans.take(key)
		if u == nil && saved != "" {
			u = b.savedUpdate(rt, key, recorded, inputs, saved)
		}
	}
	if u == nil {
		var err error
		if u, err = b.planUpdate(ctx, rt, recorded, inputs); err != nil {
			return nil, err
		}
	}
	prior, priorPrivate, planned, plan := u.prior, u.priorPrivate, u.planned, u.plan
	if prior.IsNull() {
		b.log.Info("recorded object is gone; creating it again", logkey.Type, rt.name)
		return b.create(ctx, rt, inputs, "")
	}
	if len(u.replace) > 0 {
		return nil, &ReplaceRequiredError{Provider: b.client.Name(), Type: rt.name, Paths: replaceCauses(planned, u.replace)}
	}
	if planned.RawEquals(prior) {
		// Nothing to change; Terraform skips the apply too.
		return outputs(rt, prior, priorPrivate)
	}
	state, private, err := b.apply(ctx, rt, planned, &tfclient.ApplyRequest{
		TypeName: rt.name, Prior: u.priorData, Planned: plan.Planned, Config: u.cfgData, PlannedPrivate: plan.PlannedPrivate,
	})
	if err != nil {
		return nil, err
	}
	if state.IsNull() {
		return nil, fmt.Errorf("provider %s: apply resource change: returned no object after updating it (this is a bug in the provider)", b.client.Name())
	}
	return outputs(rt, state, private)
}

func (b *Bridge) destroy(ctx context.Context, rt *resourceType, prior cty.Value, private []byte) error {
	if prior.IsNull() {
		return nil
	}
	ty := rt.ty()
	priorData, err := tfvalue.Marshal(prior, ty)
	if err != nil {
		return err
	}
	nullData, err := rt.nullData()
	if err != nil {
		return err
	}
	plannedPrivate := private
	s, err := b.client.Schema(ctx)
	if err != nil {
		return err
	}
	if s.Capabilities.PlanDestroy {
		plan, err := b.client.PlanResourceChange(ctx, &tfclient.PlanRequest{
			TypeName: rt.name, Prior: priorData, Proposed: nullData, Config: nullData, PriorPrivate: private,
		})
		if err != nil {
			return err
		}
		if err := b.diagnostics("plan destroy", rt.name, plan.Diagnostics); err != nil {
			return err
		}
		plannedPrivate = plan.PlannedPrivate
	}
	resp, err := b.client.ApplyResourceChange(ctx, &tfclient.ApplyRequest{
		TypeName: rt.name, Prior: priorData, Planned: nullData, Config: nullData, PlannedPrivate: plannedPrivate,
	})
	if err != nil {
		return applyLost(err)
	}
	if err := b.diagnostics("apply destroy", rt.name, resp.Diagnostics); err != nil {
		return err
	}
	state, err := tfvalue.Unmarshal(resp.NewState, ty)
	if err != nil {
		return fmt.Errorf("provider %s: apply destroy: decode new state: %w", b.client.Name(), err)
	}
	if !state.IsNull() {
		return fmt.Errorf("provider %s: apply destroy: the provider returned an object instead of null (this is a bug in the provider)", b.client.Name())
	}
	return nil
}

// planArgs are PlanResourceChange's msgpack arguments.
type planArgs struct {
	prior, proposed, config, private []byte
}

// plan calls PlanResourceChange and checks the plan against the
// configuration.
func (b *Bridge) plan(ctx context.Context, rt *resourceType, cfg cty.Value, a planArgs) (*tfclient.PlanResponse, cty.Value, error) {
	resp, err := b.client.PlanResourceChange(ctx, &tfclient.PlanRequest{
		TypeName: rt.name, Prior: a.prior, Proposed: a.proposed, Config: a.config, PriorPrivate: a.private,
	})
	if err != nil {
		return nil, cty.NilVal, err
	}
	if err := b.diagnostics("plan resource change", rt.name, resp.Diagnostics); err != nil {
		return nil, cty.NilVal, err
	}
	if resp.Deferred {
		return nil, cty.NilVal, fmt.Errorf("provider %s: plan resource change: the provider deferred the change, which pier does not support", b.client.Name())
	}
	planned, err := tfvalue.Unmarshal(resp.Planned, rt.ty())
	if err != nil {
		return nil, cty.NilVal, fmt.Errorf("provider %s: plan resource change: decode planned state: %w", b.client.Name(), err)
	}
	if err := b.consistent("plan resource change", rt, resp.LegacyTypeSystem, tfvalue.CheckPlan(rt.schema.Block, cfg, planned)); err != nil {
		return nil, cty.NilVal, err
	}
	return resp, planned, nil
}

// apply calls ApplyResourceChange and checks the result against the plan.
func (b *Bridge) apply(ctx context.Context, rt *resourceType, planned cty.Value, req *tfclient.ApplyRequest) (cty.Value, []byte, error) {
	resp, err := b.client.ApplyResourceChange(ctx, req)
	if err != nil {
		return cty.NilVal, nil, applyLost(err)
	}
	if err := b.diagnostics("apply resource change", rt.name, resp.Diagnostics); err != nil {
		if made := madeAnyway(rt, req, resp); made != "" {
			// Terraform records such an object as tainted; v0 has no
			// answer for "failed, but here is an object", and an error
			// would tell the host that nothing exists.
			return cty.NilVal, nil, fmt.Errorf("%w: %w; yet the provider returned the object it made (%s), so it may exist", providersdk.ErrOutcomeUnknown, err, made)
		}
		return cty.NilVal, nil, err
	}
	state, err := tfvalue.Unmarshal(resp.NewState, rt.ty())
	if err != nil {
		return cty.NilVal, nil, fmt.Errorf("provider %s: apply resource change: decode new state: %w", b.client.Name(), err)
	}
	if !tfvalue.WhollyKnown(state) {
		return cty.NilVal, nil, fmt.Errorf("provider %s: apply resource change: the new state has unknown values (this is a bug in the provider)", b.client.Name())
	}
	if err := b.consistent("apply resource change", rt, resp.LegacyTypeSystem, tfvalue.CheckApply(planned, state)); err != nil {
		return cty.NilVal, nil, err
	}
	return state, resp.Private, nil
}

// applyLost marks an ApplyResourceChange call that got no response: the
// transport failed, the provider or the process holding it died, or the
// call timed out or was cancelled. The provider may have made the change,
// so the bridge must not answer as if it had done nothing.
func applyLost(err error) error {
	return fmt.Errorf("%w: %w", providersdk.ErrOutcomeUnknown, err)
}

// madeAnyway describes the object a create returned beside its error
// diagnostics (by its id when it has one), or is "" when the request was
// not a create or the provider returned no object.
func madeAnyway(rt *resourceType, req *tfclient.ApplyRequest, resp *tfclient.ApplyResponse) string {
	prior, err := tfvalue.Unmarshal(req.Prior, rt.ty())
	if err != nil || !prior.IsNull() {
		return ""
	}
	state, err := tfvalue.Unmarshal(resp.NewState, rt.ty())
	if err != nil || state.IsNull() {
		return ""
	}
	if ty := state.Type(); ty.IsObjectType() && ty.HasAttribute("id") {
		if id, _ := state.GetAttr("id").UnmarkDeep(); id.IsKnown() && !id.IsNull() && id.Type() == cty.String {
			return "id " + strconv.Quote(id.AsString())
		}
	}
	return "an object without an id"
}

// consistent reports broken consistency rules: an error normally, a debug
// log line for providers on the legacy type system (SDKv2), as Terraform does.
func (b *Bridge) consistent(step string, rt *resourceType, legacy bool, errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	if legacy {
		// SDKv2 providers do this routinely (defaults, normalised values);
		// Terraform, too, only notes it in its debug log.
		for _, e := range errs {
			b.log.Debug("provider produced an inconsistent result; tolerated for the legacy type system", logkey.Type, rt.name, logkey.Step, step, logkey.Error, e)
		}
		return nil
	}
	return fmt.Errorf("provider %s: %s: inconsistent result (this is a bug in the provider): %w", b.client.Name(), step, errors.Join(errs...))
}

// prior upgrades recorded outputs to a state value of the current schema.
func (b *Bridge) prior(ctx context.Context, rt *resourceType, recorded schema.Properties) (cty.Value, []byte, error) {
	state, m, err := splitOutputs(recorded)
	if err != nil {
		return cty.NilVal, nil, err
	}
	raw, err := rawState(rt, state, m.SchemaVersion)
	if err != nil {
		return cty.NilVal, nil, fmt.Errorf("encode recorded state: %w", err)
	}
	data, diags, err := b.client.UpgradeResourceState(ctx, rt.name, m.SchemaVersion, raw)
	if err != nil {
		return cty.NilVal, nil, err
	}
	if err := b.diagnostics("upgrade resource state", rt.name, diags); err != nil {
		return cty.NilVal, nil, err
	}
	v, err := tfvalue.Unmarshal(data, rt.ty())
	if err != nil {
		return cty.NilVal, nil, fmt.Errorf("provider %s: upgrade resource state: decode: %w", b.client.Name(), err)
	}
	return v, m.Private, nil
}

// read calls ReadResource; a null state means the object is gone.
func (b *Bridge) read(ctx context.Context, rt *resourceType, current cty.Value, private []byte) (cty.Value, []byte, error) {
	data, err := tfvalue.Marshal(current, rt.ty())
	if err != nil {
		return cty.NilVal, nil, err
	}
	resp, err := b.client.ReadResource(ctx, &tfclient.ReadRequest{TypeName: rt.name, Current: data, Private: private})
	if err != nil {
		return cty.NilVal, nil, err
	}
	if err := b.diagnostics("read resource", rt.name, resp.Diagnostics); err != nil {
		return cty.NilVal, nil, err
	}
	if resp.Deferred {
		return cty.NilVal, nil, fmt.Errorf("provider %s: read resource: the provider deferred the read, which pier does not support", b.client.Name())
	}
	state, err := tfvalue.Unmarshal(resp.NewState, rt.ty())
	if err != nil {
		return cty.NilVal, nil, fmt.Errorf("provider %s: read resource: decode: %w", b.client.Name(), err)
	}
	return state, resp.Private, nil
}

func (b *Bridge) readDataSource(ctx context.Context, rt *resourceType, inputs schema.Properties) (schema.Properties, error) {
	_, cfgData, err := b.resourceConfig(ctx, rt, inputs)
	if err != nil {
		return nil, err
	}
	data, diags, err := b.client.ReadDataSource(ctx, rt.name, cfgData)
	if err != nil {
		return nil, err
	}
	if err := b.diagnostics("read data source", rt.name, diags); err != nil {
		return nil, err
	}
	state, err := tfvalue.Unmarshal(data, rt.ty())
	if err != nil {
		return nil, fmt.Errorf("provider %s: read data source: decode: %w", b.client.Name(), err)
	}
	if state.IsNull() || !tfvalue.WhollyKnown(state) {
		return nil, fmt.Errorf("provider %s: read data source: returned no complete object (this is a bug in the provider)", b.client.Name())
	}
	return outputs(rt, state, nil)
}
