// Package plan decides what an apply will do to one deployment: it asks
// the engine's [source.Source] which resources exist, reads their
// recorded state through the deployment's state handlers, and decides per
// resource whether to create, update, destroy or leave it, into a [Plan]
// and the execution graph host/apply carries out.
//
// Start reading at [Make] (planner.go), which runs a plan's steps in
// order: read the states (through [engine.Engine.ReadStates]), settle
// which resources keep their recorded outputs (settle.go), classify each
// resource (classify.go, deciding one with decide.go) and check the
// result. first.go is the same plan for a deployment whose states can
// be read before it resolves, which then resolves once with the recorded
// outputs known. runtime_planner.go gives host/apply the same decisions for the
// resources known only during apply.
//
//   - What it makes: a [Plan] (plan.go) of [Change]s (change.go), each
//     with an [execgraph.Action] (the names of execgraph's vocabulary, which
//     lowers actions to opcodes), steered by [Options] (options.go). diff.go and equal.go compare inputs
//     (number.go keeps numbers exact); shown.go is a plan's changes as
//     their graph operations carry them out, which every face lists;
//     planned.go, output_changes.go and graph_view.go are what pier plan,
//     pier show and --json print of a plan; change_redact.go which of a change's values are sensitive
//     (host/redact replaces them).
//   - lifecycle.go is what create_before_destroy, prevent_destroy,
//     ignore_changes, --replace and --target do to a plan; conditions.go
//     what preconditions and postconditions refuse (host/apply's
//     conditions.go, what they stop during apply); checks.go the check
//     blocks' warnings.
//   - What a plan learns from the real objects: refresh.go (--refresh,
//     refresh = true) and refresh_only.go (--refresh-only),
//     import_blocks.go (import blocks), moved.go (moved blocks),
//     removed.go (records whose block is gone, removed blocks),
//     pending.go (what interrupted runs left pending).
//   - What a plan checks before anything runs: executables.go (provider
//     executables), tfcheck.go and tfsensitive.go (Terraform schemas),
//     preview.go (the providers' own previews).
//   - The execution graph ([Plan.Graph]): graph.go builds it, ordered by
//     deps.go; graph_codec.go is its JSON form in a saved plan.
//
// It plans on an [engine.Engine], whose providers start lazily: a
// provider whose resources are all unchanged never starts. It knows
// nothing of who applies its plan (host/apply), of HCL or Nix, nor of the
// command line.
package plan
