// Package engine plans one deployment: it asks a [source.Source] which
// resources exist, reads their recorded state through the deployment's
// state handlers, and decides per resource whether to create, update,
// destroy or leave it, into a plan whose execution graph host/apply
// carries out.
//
// The planner (planner.go) runs a plan's steps in order: it reads the
// states (states.go, shared with the state commands and host/apply),
// settles which resources keep their recorded outputs (settle.go),
// classifies each resource (classify.go, deciding one with decide.go) and
// checks the result. What it makes is a [Plan] (plan.go) of [Change]s
// (change.go), each with an [Action] (action.go, the names of
// execgraph's vocabulary, which lowers actions to opcodes), steered by
// [PlanOptions] (options.go). lifecycle.go is what create_before_destroy,
// prevent_destroy, ignore_changes, --replace and --target do to a plan;
// conditions.go what resources' preconditions and postconditions refuse
// (host/apply's conditions.go, what they stop during apply);
// executables.go and tfcheck.go what a plan checks before anything runs.
// What a plan learns from the real objects: refresh.go (--refresh,
// refresh = true) and refresh_only.go (--refresh-only), import_blocks.go
// (import blocks), removed.go (records whose block is gone, removed
// blocks), pending.go (what interrupted runs left pending; the refusal
// itself is pending_error.go).
//
// The state commands record without a plan: import.go (pier import),
// forget.go, move.go (pier state mv) and resolve.go (pier state
// resolve), each through a [Recorder] (recorder.go), which appends state
// events for them and for host/apply.
//
// It owns the execution graph that saved plans are compared by
// (graph.go, ordered by deps.go; graph_view.go is pier plan --json's view
// of it), which of a change's values are sensitive (change_redact.go;
// host/redact replaces them) and the progress events (events.go). It
// starts provider processes lazily through host/provider (providers.go,
// set up by config.go): a provider whose resources are all unchanged
// never starts. accessors.go is what host/apply reads of an engine, and
// runtime_planner.go the decisions it asks of planning during apply. It
// knows nothing of HCL or Nix, nor of the command line. What a state
// document holds, and the patches that record a change in it, are
// host/statedoc's.
//
// Start reading at [Engine.Plan].
package engine
