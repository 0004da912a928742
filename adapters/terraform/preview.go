package terraform

import (
	"context"
	"errors"
	"fmt"

	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"github.com/pierhq/pier/adapters/terraform/internal/tfvalue"
	"github.com/pierhq/pier/schema"
	"github.com/zclconf/go-cty/cty"
)

// Preview implements [providersdk.Previewer] with what terraform plan
// does, and no more: ValidateResourceConfig, then PlanResourceChange from
// a null prior (a create) or from the upgraded recorded state (an update,
// [Bridge.planUpdate]). Nothing is applied. The provider's error
// diagnostics come back as the response's diagnostics, with the attribute
// each names, so that the plan fails with the position of that input. A
// data source is only validated: it is read at apply, never replaced.
func (b *Bridge) Preview(ctx context.Context, req *schema.PreviewResourceRequest) (_ *schema.PreviewResourceResponse, err error) {
	ctx, cancel := b.op(ctx)
	defer cancel()
	defer func() { err = b.timedOut(ctx, err) }()
	// Validation needs no configured provider (terraform validate runs
	// unconfigured too), so a config the provider rejects is reported even
	// when the provider could not be configured here; planning configures.
	rt, err := b.lookup(ctx, req.Type)
	if err != nil {
		return nil, err
	}
	resp, err := b.preview(ctx, rt, req)
	if err != nil {
		return failedPreview(err)
	}
	return resp, nil
}

// Validate checks a resource's inputs as terraform validate does: the
// conversion to the schema's types (required attributes, types), then the
// provider's own ValidateResourceConfig (or ValidateDataSourceConfig),
// which checks conflicts, allowed values and the rest. It needs no
// configured provider. What the provider refuses comes back as
// diagnostics with the attribute each names; an error is a failure to ask.
func (b *Bridge) Validate(ctx context.Context, typ string, inputs schema.Properties) ([]schema.Diagnostic, error) {
	ctx, cancel := b.op(ctx)
	defer cancel()
	rt, err := b.lookup(ctx, typ)
	if err != nil {
		return nil, err
	}
	if _, _, err := b.resourceConfig(ctx, rt, inputs); err != nil {
		resp, err := failedPreview(err)
		if err != nil {
			return nil, b.timedOut(ctx, err)
		}
		return resp.Diagnostics, nil
	}
	return nil, nil
}

func (b *Bridge) preview(ctx context.Context, rt *resourceType, req *schema.PreviewResourceRequest) (*schema.PreviewResourceResponse, error) {
	if rt.dataSource {
		if _, _, err := b.resourceConfig(ctx, rt, req.InputProperties); err != nil {
			return nil, err
		}
		return &schema.PreviewResourceResponse{}, nil
	}

	if req.Resource == nil {
		if !req.IsStateful {
			return &schema.PreviewResourceResponse{Diagnostics: []schema.Diagnostic{{
				Severity: schema.SeverityError, Summary: "Missing state", Detail: errNotStateful.Error(),
			}}}, nil
		}
		cfg, cfgData, err := b.resourceConfig(ctx, rt, req.InputProperties)
		if err != nil {
			return nil, err
		}
		nullData, err := rt.nullData()
		if err != nil {
			return nil, err
		}
		if err := b.configure(ctx); err != nil {
			return nil, err
		}
		args := planArgs{prior: nullData, proposed: cfgData, config: cfgData}
		plan, planned, err := b.plan(ctx, rt, cfg, args)
		if err != nil {
			return nil, err
		}
		resp, err := plannedResponse(planned)
		if err != nil {
			return nil, err
		}
		if key, ok := createKey(rt, req.InputProperties); ok {
			b.plans.put(key, &updatePlan{cfgData: cfgData, plan: plan, planned: planned})
			resp.Plan = newSavedPlan(key, plan.Planned, plan.PlannedPrivate, nil).encode()
		}
		return resp, nil
	}
	u, err := b.planUpdate(ctx, rt, req.Resource.OutputProperties, req.InputProperties)
	if err != nil {
		return nil, err
	}
	key, keyed := updateKey(rt, req.Resource.OutputProperties, req.InputProperties)
	if keyed {
		b.plans.put(key, u)
	}
	if u.prior.IsNull() {
		// The object is gone: the update creates it again, planning
		// then.
		return plannedResponse(u.planned)
	}
	if len(u.replace) > 0 {
		return &schema.PreviewResourceResponse{Replace: true, ReplaceReasons: replaceCauses(u.planned, u.replace)}, nil
	}
	resp, err := plannedResponse(u.planned)
	if err == nil && keyed {
		resp.Plan = newSavedPlan(key, u.plan.Planned, u.plan.PlannedPrivate, u.priorData).encode()
	}
	return resp, err
}

// plannedResponse gives the planned object as outputs: its known values,
// and the paths of those known only after apply. The bridge's reserved
// key is left out: the private bytes are not known before apply, and the
// rest of it is the bridge's business. The plan itself goes in the
// response's Plan, which the caller sets (see savedPlan).
func plannedResponse(planned cty.Value) (*schema.PreviewResourceResponse, error) {
	resp := &schema.PreviewResourceResponse{}
	if planned == cty.NilVal || planned.IsNull() {
		return resp, nil
	}
	j, err := tfvalue.KnownJSON(planned, func(p []any) {
		resp.UnknownOutputs = append(resp.UnknownOutputs, p)
	})
	if err != nil {
		return nil, fmt.Errorf("encode planned outputs: %w", err)
	}
	out, ok := j.(map[string]any)
	if !ok {
		return nil, errors.New("encode planned outputs: the planned state is not an object")
	}
	resp.PlannedOutputProperties = out
	return resp, nil
}

// failedPreview turns what the provider (or the input conversion) said is
// wrong into the response's diagnostics; any other error stays an error.
func failedPreview(err error) (*schema.PreviewResourceResponse, error) {
	var de *tfproto.DiagnosticsError
	var pe *tfvalue.PathError
	switch {
	case errors.As(err, &de):
		resp := &schema.PreviewResourceResponse{}
		for _, d := range de.Diagnostics {
			resp.Diagnostics = append(resp.Diagnostics, schema.Diagnostic{
				Severity: schema.SeverityError, Summary: d.Summary, Detail: d.Detail, Attribute: protoPath(d.Attribute),
			})
		}
		return resp, nil
	case errors.As(err, &pe):
		return &schema.PreviewResourceResponse{Diagnostics: []schema.Diagnostic{{
			Severity: schema.SeverityError, Summary: "Invalid input", Detail: pe.Err.Error(), Attribute: tfvalue.AttributePath(pe.Path),
		}}}, nil
	}
	return nil, err
}

// protoPath converts a plugin protocol path to the v0 form.
func protoPath(p tfproto.AttributePath) schema.AttributePath {
	var out schema.AttributePath
	for _, s := range p {
		switch s.Kind {
		case tfproto.StepAttribute:
			out = append(out, s.Name)
		case tfproto.StepKeyString:
			out = append(out, s.Key)
		case tfproto.StepKeyInt:
			out = append(out, int(s.Int))
		}
	}
	return out
}
