package tfclient

import (
	"context"

	"github.com/pierhq/pier/adapters/terraform/internal/tfplugin5"
	"github.com/pierhq/pier/adapters/terraform/internal/tfproto"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// v5 speaks protocol 5.
type v5 struct{ c tfplugin5.ProviderClient }

func newV5(conn grpc.ClientConnInterface) *v5 { return &v5{c: tfplugin5.NewProviderClient(conn)} }

// caps5 tells the provider pier cannot defer resources.
var caps5 = &tfplugin5.ClientCapabilities{DeferralAllowed: false}

func dv5(b []byte) *tfplugin5.DynamicValue { return &tfplugin5.DynamicValue{Msgpack: b} }

func (p *v5) getSchema(ctx context.Context) (*tfproto.ProviderSchema, proto.Message, error) {
	r, err := p.c.GetSchema(ctx, &tfplugin5.GetProviderSchema_Request{})
	if err != nil {
		return nil, nil, err
	}
	s, err := tfplugin5.ProviderSchemaFromProto(r)
	return s, r, err
}

// decodeSchemaV5 reads a schema another process fetched (see [Attachment]).
func decodeSchemaV5(data []byte) (*tfproto.ProviderSchema, error) {
	var r tfplugin5.GetProviderSchema_Response
	if err := proto.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return tfplugin5.ProviderSchemaFromProto(&r)
}

func (p *v5) validateProviderConfig(ctx context.Context, cfg []byte) ([]byte, tfproto.Diagnostics, error) {
	r, err := p.c.PrepareProviderConfig(ctx, &tfplugin5.PrepareProviderConfig_Request{Config: dv5(cfg)})
	if err != nil {
		return nil, nil, err
	}
	return r.GetPreparedConfig().GetMsgpack(), tfplugin5.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v5) configure(ctx context.Context, cfg []byte) (tfproto.Diagnostics, error) {
	r, err := p.c.Configure(ctx, &tfplugin5.Configure_Request{
		TerraformVersion:   terraformVersion,
		Config:             dv5(cfg),
		ClientCapabilities: caps5,
	})
	if err != nil {
		return nil, err
	}
	return tfplugin5.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v5) validateResourceConfig(ctx context.Context, typ string, cfg []byte) (tfproto.Diagnostics, error) {
	r, err := p.c.ValidateResourceTypeConfig(ctx, &tfplugin5.ValidateResourceTypeConfig_Request{
		TypeName: typ, Config: dv5(cfg), ClientCapabilities: caps5,
	})
	if err != nil {
		return nil, err
	}
	return tfplugin5.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v5) validateDataSourceConfig(ctx context.Context, typ string, cfg []byte) (tfproto.Diagnostics, error) {
	r, err := p.c.ValidateDataSourceConfig(ctx, &tfplugin5.ValidateDataSourceConfig_Request{TypeName: typ, Config: dv5(cfg)})
	if err != nil {
		return nil, err
	}
	return tfplugin5.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v5) upgradeResourceState(ctx context.Context, typ string, version int64, raw []byte) ([]byte, tfproto.Diagnostics, error) {
	r, err := p.c.UpgradeResourceState(ctx, &tfplugin5.UpgradeResourceState_Request{
		TypeName: typ, Version: version, RawState: &tfplugin5.RawState{Json: raw},
	})
	if err != nil {
		return nil, nil, err
	}
	return r.GetUpgradedState().GetMsgpack(), tfplugin5.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v5) readResource(ctx context.Context, q *ReadRequest) (*ReadResponse, error) {
	r, err := p.c.ReadResource(ctx, &tfplugin5.ReadResource_Request{
		TypeName: q.TypeName, CurrentState: dv5(q.Current), Private: q.Private, ClientCapabilities: caps5,
	})
	if err != nil {
		return nil, err
	}
	return &ReadResponse{
		NewState:    r.GetNewState().GetMsgpack(),
		Private:     r.GetPrivate(),
		Deferred:    r.GetDeferred() != nil,
		Diagnostics: tfplugin5.DiagnosticsFromProto(r.GetDiagnostics()),
	}, nil
}

func (p *v5) planResourceChange(ctx context.Context, q *PlanRequest) (*PlanResponse, error) {
	r, err := p.c.PlanResourceChange(ctx, &tfplugin5.PlanResourceChange_Request{
		TypeName:           q.TypeName,
		PriorState:         dv5(q.Prior),
		ProposedNewState:   dv5(q.Proposed),
		Config:             dv5(q.Config),
		PriorPrivate:       q.PriorPrivate,
		ClientCapabilities: caps5,
	})
	if err != nil {
		return nil, err
	}
	return &PlanResponse{
		Planned:          r.GetPlannedState().GetMsgpack(),
		RequiresReplace:  tfplugin5.AttributePathsFromProto(r.GetRequiresReplace()),
		PlannedPrivate:   r.GetPlannedPrivate(),
		LegacyTypeSystem: r.GetLegacyTypeSystem(),
		Deferred:         r.GetDeferred() != nil,
		Diagnostics:      tfplugin5.DiagnosticsFromProto(r.GetDiagnostics()),
	}, nil
}

func (p *v5) applyResourceChange(ctx context.Context, q *ApplyRequest) (*ApplyResponse, error) {
	r, err := p.c.ApplyResourceChange(ctx, &tfplugin5.ApplyResourceChange_Request{
		TypeName:       q.TypeName,
		PriorState:     dv5(q.Prior),
		PlannedState:   dv5(q.Planned),
		Config:         dv5(q.Config),
		PlannedPrivate: q.PlannedPrivate,
	})
	if err != nil {
		return nil, err
	}
	return &ApplyResponse{
		NewState:         r.GetNewState().GetMsgpack(),
		Private:          r.GetPrivate(),
		LegacyTypeSystem: r.GetLegacyTypeSystem(),
		Diagnostics:      tfplugin5.DiagnosticsFromProto(r.GetDiagnostics()),
	}, nil
}

func (p *v5) importResourceState(ctx context.Context, typ, id string) ([]ImportedResource, tfproto.Diagnostics, error) {
	r, err := p.c.ImportResourceState(ctx, &tfplugin5.ImportResourceState_Request{TypeName: typ, Id: id, ClientCapabilities: caps5})
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
	return out, tfplugin5.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v5) readDataSource(ctx context.Context, typ string, cfg []byte) ([]byte, tfproto.Diagnostics, error) {
	r, err := p.c.ReadDataSource(ctx, &tfplugin5.ReadDataSource_Request{TypeName: typ, Config: dv5(cfg), ClientCapabilities: caps5})
	if err != nil {
		return nil, nil, err
	}
	return r.GetState().GetMsgpack(), tfplugin5.DiagnosticsFromProto(r.GetDiagnostics()), nil
}

func (p *v5) stop(ctx context.Context) (string, error) {
	r, err := p.c.Stop(ctx, &tfplugin5.Stop_Request{})
	if err != nil {
		return "", err
	}
	return r.GetError(), nil
}
