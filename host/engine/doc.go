// Package engine plans and applies one deployment: it asks a
// [source.Source] which resources exist, reads their recorded state
// through the deployment's state handlers, decides per resource whether
// to create, update, destroy or leave it (plan.go), and carries that out
// with bounded parallelism, recording every stateful change as a state
// event before anything that depends on it starts: apply.go sets a run
// up and compiles the plan's graph, schedule.go decides what runs when
// (deps.go orders it, as it orders Plan.Graph), execute.go carries out
// one operation (the applier is the graph's [execgraph.Operations]), recording.go and
// recorder.go record it, outputs.go keeps the outputs. lifecycle.go is
// what create_before_destroy, prevent_destroy, ignore_changes, --replace
// and --target do to a plan. What a plan learns from the real objects:
// refresh.go (--refresh, refresh = true) and refresh_only.go
// (--refresh-only), import_blocks.go (import blocks; import.go is pier
// import), removed.go (records whose block is gone, removed blocks).
//
// It owns scheduling (ordering, failure and skip propagation, interrupts,
// resolving blocked resources as outputs arrive), the execution
// graph that saved plans are compared by (graph.go; graph_view.go is
// pier plan --json's view of it), which of a change's values are
// sensitive (change_redact.go; host/redact replaces them) and the progress
// events (events.go). It starts provider processes lazily through host/provider
// (providers.go): a provider whose resources are all unchanged never
// starts. It knows nothing of HCL or Nix, nor of the command line. What
// a state document holds, and the patches that record a change in it,
// are host/statedoc's.
//
// Start reading at [Engine.Plan] and [Engine.Apply].
package engine
