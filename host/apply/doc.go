// Package apply carries out a plan: it runs the plan's execution graph
// ([execgraph.Graph]) with bounded parallelism, recording every stateful
// change as a state event before anything that depends on it starts.
//
//   - apply.go sets a run up: it compiles the graph and reads (or, for a
//     saved plan, reads again) the states. Start reading at [Run] and
//     [RunGraph].
//   - schedule.go decides what runs when: ordering, failure and skip
//     propagation, interrupts, and resolving blocked resources as their
//     inputs' outputs arrive (deciding them by the [Planner] the caller
//     passes in).
//   - calls.go bounds the provider requests in flight: a node holds a
//     call slot only for its request, and twice as many nodes may be
//     started, so that their intents are recorded meanwhile; requests
//     are granted in the order the nodes started.
//   - execute.go carries out one operation: the applier is the graph's
//     [execgraph.Operations], one method per opcode (a replace is its
//     create and destroy halves there). A change decided at run time is
//     lowered to opcodes by [execgraph.Steps], as a planned one is.
//   - recording.go records an operation's outcome through the state's
//     [engine.Recorder]; intents.go records a create's or destroy's
//     intent before it is sent (pending operations); handler_lost.go
//     takes a lost state handler's lock again and records what it missed.
//   - outputs.go records the deployment outputs; drift.go what a refresh
//     found of objects the plan leaves alone.
//
// Planning is host/plan's: apply reads the plan it executes from there,
// runs on the engine's providers and records through its recorders
// (host/engine), and never decides a plan of its own beyond the resources
// that were blocked at plan time.
package apply
