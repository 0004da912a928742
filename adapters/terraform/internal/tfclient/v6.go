package tfclient

import (
	"context"

	"github.com/pierhq/pier/adapters/terraform/internal/tfplugin6"
	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// v6 speaks protocol 6.
type v6 struct{ c tfplugin6.ProviderClient }

func newV6(conn grpc.ClientConnInterface) *v6 { return &v6{c: tfplugin6.NewProviderClient(conn)} }

// caps6 tells the provider pier cannot defer resources.
var caps6 = &tfplugin6.ClientCapabilities{DeferralAllowed: false}

func dv6(b []byte) *tfplugin6.DynamicValue { return &tfplugin6.DynamicValue{Msgpack: b} }

func (p *v6) getSchema(ctx context.Context) (*tfproto.ProviderSchema, proto.Message, error) {
	r, err := p.c.GetProviderSchema(ctx, &tfplugin6.GetProviderSchema_Request{})
	if err != nil {
		return nil, nil, err
	}
	s, err := tfplugin6.ProviderSchemaFromProto(r)
	return s, r, err
}

// decodeSchemaV6 reads a schema another process fetched (see [Attachment]).
func decodeSchemaV6(data []byte) (*tfproto.ProviderSchema, error) {
	var r tfplugin6.GetProviderSchema_Response
	if err := proto.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return tfplugin6.ProviderSchemaFromProto(&r)
}

func (p *v6) validateProviderConfig(ctx context.Context, cfg []byte) ([]byte, tfproto.Diagnostics, error) {
	r, err := p.c.ValidateProviderConfig(ctx, &tfplugin6.ValidateProviderConfig_Request{Config: dv6(cfg)})
	if err != nil {
		return nil, nil, err
	}
	return nil, tfplugin6.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v6) configure(ctx context.Context, cfg []byte) (tfproto.Diagnostics, error) {
	r, err := p.c.ConfigureProvider(ctx, &tfplugin6.ConfigureProvider_Request{
		TerraformVersion:   terraformVersion,
		Config:             dv6(cfg),
		ClientCapabilities: caps6,
	})
	if err != nil {
		return nil, err
	}
	return tfplugin6.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v6) validateResourceConfig(ctx context.Context, typ string, cfg []byte) (tfproto.Diagnostics, error) {
	r, err := p.c.ValidateResourceConfig(ctx, &tfplugin6.ValidateResourceConfig_Request{
		TypeName: typ, Config: dv6(cfg), ClientCapabilities: caps6,
	})
	if err != nil {
		return nil, err
	}
	return tfplugin6.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v6) validateDataSourceConfig(ctx context.Context, typ string, cfg []byte) (tfproto.Diagnostics, error) {
	r, err := p.c.ValidateDataResourceConfig(ctx, &tfplugin6.ValidateDataResourceConfig_Request{TypeName: typ, Config: dv6(cfg)})
	if err != nil {
		return nil, err
	}
	return tfplugin6.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v6) upgradeResourceState(ctx context.Context, typ string, version int64, raw []byte) ([]byte, tfproto.Diagnostics, error) {
	r, err := p.c.UpgradeResourceState(ctx, &tfplugin6.UpgradeResourceState_Request{
		TypeName: typ, Version: version, RawState: &tfplugin6.RawState{Json: raw},
	})
	if err != nil {
		return nil, nil, err
	}
	return r.GetUpgradedState().GetMsgpack(), tfplugin6.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v6) readResource(ctx context.Context, q *ReadRequest) (*ReadResponse, error) {
	r, err := p.c.ReadResource(ctx, &tfplugin6.ReadResource_Request{
		TypeName: q.TypeName, CurrentState: dv6(q.Current), Private: q.Private, ClientCapabilities: caps6,
	})
	if err != nil {
		return nil, err
	}
	return &ReadResponse{
		NewState:    r.GetNewState().GetMsgpack(),
		Private:     r.GetPrivate(),
		Deferred:    r.GetDeferred() != nil,
		Diagnostics: tfplugin6.DiagnosticsFromProto(r.GetDiagnostics()),
	}, nil
}

func (p *v6) planResourceChange(ctx context.Context, q *PlanRequest) (*PlanResponse, error) {
	r, err := p.c.PlanResourceChange(ctx, &tfplugin6.PlanResourceChange_Request{
		TypeName:           q.TypeName,
		PriorState:         dv6(q.Prior),
		ProposedNewState:   dv6(q.Proposed),
		Config:             dv6(q.Config),
		PriorPrivate:       q.PriorPrivate,
		ClientCapabilities: caps6,
	})
	if err != nil {
		return nil, err
	}
	return &PlanResponse{
		Planned:          r.GetPlannedState().GetMsgpack(),
		RequiresReplace:  tfplugin6.AttributePathsFromProto(r.GetRequiresReplace()),
		PlannedPrivate:   r.GetPlannedPrivate(),
		LegacyTypeSystem: r.GetLegacyTypeSystem(),
		Deferred:         r.GetDeferred() != nil,
		Diagnostics:      tfplugin6.DiagnosticsFromProto(r.GetDiagnostics()),
	}, nil
}

func (p *v6) applyResourceChange(ctx context.Context, q *ApplyRequest) (*ApplyResponse, error) {
	r, err := p.c.ApplyResourceChange(ctx, &tfplugin6.ApplyResourceChange_Request{
		TypeName:       q.TypeName,
		PriorState:     dv6(q.Prior),
		PlannedState:   dv6(q.Planned),
		Config:         dv6(q.Config),
		PlannedPrivate: q.PlannedPrivate,
	})
	if err != nil {
		return nil, err
	}
	return &ApplyResponse{
		NewState:         r.GetNewState().GetMsgpack(),
		Private:          r.GetPrivate(),
		LegacyTypeSystem: r.GetLegacyTypeSystem(),
		Diagnostics:      tfplugin6.DiagnosticsFromProto(r.GetDiagnostics()),
	}, nil
}

func (p *v6) importResourceState(ctx context.Context, typ, id string) ([]ImportedResource, tfproto.Diagnostics, error) {
	r, err := p.c.ImportResourceState(ctx, &tfplugin6.ImportResourceState_Request{TypeName: typ, Id: id, ClientCapabilities: caps6})
	if err != nil {
		return nil, nil, err
	}
	var out []ImportedResource
	for _, ir := range r.GetImportedResources() {
		if ir == nil {
			continue
		}
		out = append(out, ImportedResource{TypeName: ir.GetTypeName(), State: ir.GetState().GetMsgpack(), Private: ir.GetPrivate()})
	}
	return out, tfplugin6.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v6) readDataSource(ctx context.Context, typ string, cfg []byte) ([]byte, tfproto.Diagnostics, error) {
	r, err := p.c.ReadDataSource(ctx, &tfplugin6.ReadDataSource_Request{TypeName: typ, Config: dv6(cfg), ClientCapabilities: caps6})
	if err != nil {
		return nil, nil, err
	}
	return r.GetState().GetMsgpack(), tfplugin6.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v6) stop(ctx context.Context) (string, error) {
	r, err := p.c.StopProvider(ctx, &tfplugin6.StopProvider_Request{})
	if err != nil {
		return "", err
	}
	return r.GetError(), nil
}
