// Package engine plans one deployment: it asks a [source.Source] which
// resources exist, reads their recorded state through the deployment's
// state handlers, and decides per resource whether to create, update,
// destroy or leave it (plan.go), into a plan whose execution graph
// host/apply carries out. lifecycle.go is what create_before_destroy,
// prevent_destroy, ignore_changes, --replace and --target do to a plan;
// conditions.go what resources' preconditions and postconditions refuse
// (host/apply's conditions.go, what they stop during apply).
// What a plan learns from the real objects: refresh.go (--refresh,
// refresh = true) and refresh_only.go (--refresh-only), import_blocks.go
// (import blocks; import.go is pier import), removed.go (records whose
// block is gone, removed blocks).
//
// It owns the execution graph that saved plans are compared by
// (graph.go, ordered by deps.go; graph_view.go is pier plan --json's view
// of it), which of a change's values are sensitive (change_redact.go;
// host/redact replaces them) and the progress events (events.go). It
// starts provider processes lazily through host/provider (providers.go):
// a provider whose resources are all unchanged never starts. recorder.go
// appends state events, for the state commands here and for host/apply;
// for_apply.go is what else host/apply reads of an engine. It knows
// nothing of HCL or Nix, nor of the command line. What a state document
// holds, and the patches that record a change in it, are
// host/statedoc's.
//
// Start reading at [Engine.Plan].
package engine
