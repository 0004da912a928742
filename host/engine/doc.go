// Package engine is the runtime that planning (host/plan) and applying
// (host/apply) share for one deployment: the engine value and its
// [Config] (engine.go, config.go), the providers it starts lazily through
// host/provider (providers.go), the progress events (events.go) with the
// action each reports (execgraph's vocabulary, [execgraph.Action], which
// also lowers actions to opcodes), and the deployment's states:
// states.go runs the state handlers and reads what they hold (early.go
// while the deployment resolves, first.go before it, for a source that
// resolves its handlers alone), and recorder.go appends state events, for the state commands here and for
// host/apply. pending_error.go is the refusal of an operation an
// interrupted run left pending, which a plan warns of and apply refuses
// with; provider_check.go what a saved plan checks of the providers it
// was made with. accessors.go is what host/plan and host/apply read of an
// engine.
//
// The state commands record without a plan: import.go (pier import, and
// the import of one object, which import blocks use too), forget.go,
// move.go (pier state mv) and resolve.go (pier state resolve).
// handlers.go lists the state handlers for commands that reach their
// storage themselves.
//
// It knows nothing of HCL or Nix, nor of the command line, nor of how a
// plan is made or applied. What a state document holds, and the patches
// that record a change in it, are host/statedoc's.
//
// Start reading at [New] and [Engine.ReadStates].
package engine
