// Package nixsource is the Nix flake deployment source: it implements
// [source.Source] by evaluating a flake's NixOps4 component with the nix
// CLI, in rounds.
//
// A flake output (default attribute nixops4) has the shape
//
//	{ _type = "nixops4Component"; rootFunction = { outputValues, resourceProviderSystem, ... }: { members = { … }; }; }
//
// where each member is a composite { members = { … }; } or a resource
// { resource = { provider = { executable; args; type = "stdio"; operations?; }; type; inputs; outputsSkeleton; state; }; }.
//
// Each [Source.Resolve] runs one `nix eval --json --impure` of the
// embedded driver expression (driver.nix) applied to the component, with
// the outputs known so far in a temporary 0600 file. An output that is not
// known yet throws; every member is evaluated under builtins.tryEval, so a
// round answers which resources are ready, which are blocked and which
// composites cannot list their members yet (structurally blocked). Which
// member needed or read which output travels as builtins.trace lines on
// stderr (see trace.go), which also attribute uncatchable errors such as
// type errors to the member that raised them. Store paths in the string
// context of a ready resource (a provider built by a derivation, say) are
// realised with nix-store --realise before the resource is returned.
//
// Beside rootFunction, a component may hold pier.providers, a list of
// { executable; args?; operations; }: the optional operations of providers
// whose declarations cannot list them, as in flakes built with NixOps4's
// modules, whose provider option has no operations. NixOps4 reads only
// _type and rootFunction, so the flake stays valid for it.
//
// Beyond the NixOps4 shape pier accepts provider = { builtin = "local"; }
// for its own adapters (run by the engine with pier's executable, so a
// flake needs no path to pier), provider.env, and state given as a dotted
// address. A resource's provider is named after its executable and a hash
// of the whole declaration, so equal declarations share one provider and
// the name is the same in every round and run.
//
// A round's cost is one nix process plus, per member, an evaluation in a
// shared instance of the deployment. Only members that read outputs and
// whose reads pier does not know from the previous round are evaluated in
// an instance of their own (see driver.nix), so that repeated rounds stay
// linear in the size of the deployment. A round whose new outputs no member
// waited on is answered from the last evaluation without running nix at
// all. Store paths are realised once per Source. The worst case is a round
// in which many members first see an output they all read: each of them
// is then evaluated in its own instance (BenchmarkResolve1000FanOut).
//
// Errors are typed: [*EvalError] (a Nix error, with the member whose
// evaluation raised it), [*CycleError] (members waiting on each other, with
// the outputs each needs), [*DeclError] (a resource declaration pier cannot
// use, at its file:line:col) and [*RealiseError] (a store path a resource
// needs could not be built). Positions in the store copy of a local flake
// are rewritten to the user's own files.
//
// The package owns the driver expression, the flake reference handling and
// the nix subprocesses. It imports only host/source and schema from pier and
// knows nothing about the engine, state or providers' processes. It runs
// nix itself with os/exec (the provider supervisor in host/internal/proc is
// about long-lived protocol processes; nix is a one-shot evaluator).
//
// Start reading at [New] and [Source.Resolve].
package nixsource
