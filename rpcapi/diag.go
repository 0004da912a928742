package rpcapi

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/pierhq/pier/host/diag"
	"github.com/pierhq/pier/host/engine"
	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/rpcapi/pier1"
)

// diagnostics renders an error from the engine or a source as the
// diagnostics a client shows, as the CLI shows them (host/diag's one
// translator): configuration errors keep their ranges, resource failures
// and provider diagnostics their address, anything else is one error.
func diagnostics(err error) []*pier1.Diagnostic {
	return render(diag.FromError(err, false))
}

// hclDiagnostics renders an expression's HCL diagnostics.
func hclDiagnostics(ds hcl.Diagnostics) []*pier1.Diagnostic {
	return render(diag.FromHCLs(ds))
}

func render(ds []diag.Diagnostic) []*pier1.Diagnostic {
	var out []*pier1.Diagnostic
	for _, d := range ds {
		pd := &pier1.Diagnostic{Severity: pier1.Diagnostic_ERROR, Summary: d.Summary, Detail: d.Detail, Address: d.Address}
		if d.Severity == diag.Warning {
			pd.Severity = pier1.Diagnostic_WARNING
		}
		if r := d.Range; r != nil {
			pd.Subject = &pier1.SourceRange{
				Filename: r.Filename,
				Start:    &pier1.SourcePos{Line: int64(r.Start.Line), Column: int64(r.Start.Column), Byte: int64(r.Start.Byte)},
				End:      &pier1.SourcePos{Line: int64(r.End.Line), Column: int64(r.End.Column), Byte: int64(r.End.Byte)},
			}
		}
		out = append(out, pd)
	}
	return out
}

func warning(msg string) *pier1.Diagnostic {
	return &pier1.Diagnostic{Severity: pier1.Diagnostic_WARNING, Summary: msg}
}

func sourceRange(r source.Range) *pier1.SourceRange {
	if r.Filename == "" {
		return nil
	}
	return &pier1.SourceRange{Filename: r.Filename, Start: &pier1.SourcePos{Line: int64(r.Line), Column: int64(r.Column)}}
}

func action(a execgraph.Action) pier1.Action {
	switch a {
	case execgraph.ActionCreate:
		return pier1.Action_CREATE
	case execgraph.ActionUpdate:
		return pier1.Action_UPDATE
	case execgraph.ActionNoOp:
		return pier1.Action_NO_OP
	case execgraph.ActionDestroy:
		return pier1.Action_DESTROY
	case execgraph.ActionReplace:
		return pier1.Action_REPLACE
	case execgraph.ActionRefresh:
		return pier1.Action_REFRESH
	case execgraph.ActionForget:
		return pier1.Action_FORGET
	case execgraph.ActionImport:
		return pier1.Action_IMPORT
	}
	return pier1.Action_ACTION_INVALID
}

func resourceStatus(s engine.Status) pier1.Progress_ResourceStatus_Status {
	switch s {
	case engine.StatusPending:
		return pier1.Progress_ResourceStatus_PENDING
	case engine.StatusApplying:
		return pier1.Progress_ResourceStatus_APPLYING
	case engine.StatusApplied:
		return pier1.Progress_ResourceStatus_APPLIED
	case engine.StatusErrored:
		return pier1.Progress_ResourceStatus_ERRORED
	case engine.StatusSkipped:
		return pier1.Progress_ResourceStatus_SKIPPED
	case engine.StatusRefreshing:
		return pier1.Progress_ResourceStatus_REFRESHING
	case engine.StatusRefreshed:
		return pier1.Progress_ResourceStatus_REFRESHED
	}
	return pier1.Progress_ResourceStatus_INVALID
}

// progress converts an engine event; provider log lines only when the
// client asked for them. It returns nil for events clients do not get.
func progress(ev engine.Event, logs bool) *pier1.Progress {
	switch ev.Type {
	case engine.EventStatus:
		rs := &pier1.Progress_ResourceStatus{Address: ev.ResourceAddress(), DeposedKey: ev.Deposed, Action: action(ev.Action), Status: resourceStatus(ev.Status), Provider: ev.Provider, ElapsedMs: ev.Elapsed.Milliseconds()}
		if ev.Err != nil {
			rs.Message = ev.Err.Error()
		}
		return &pier1.Progress{Event: &pier1.Progress_ResourceStatus_{ResourceStatus: rs}}
	case engine.EventLog:
		if !logs {
			return nil
		}
		return &pier1.Progress{Event: &pier1.Progress_ProviderLog_{ProviderLog: &pier1.Progress_ProviderLog{Address: ev.Address, Provider: ev.Provider, Line: ev.Message}}}
	case engine.EventEvaluation:
		return &pier1.Progress{Event: &pier1.Progress_Evaluation_{Evaluation: &pier1.Progress_Evaluation{Round: int32(ev.Round), ElapsedMs: ev.Elapsed.Milliseconds()}}}
	}
	return nil
}
