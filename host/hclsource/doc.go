// Package hclsource is the HCL deployment source: it loads a directory of
// *.pier.hcl files (and *.pier.json files, HCL's JSON syntax, with the same
// meaning) and answers the engine's [source.Source] questions about it.
//
// It owns the deployment language: the provider, resource, deployment,
// variable, output and locals blocks, their references, their functions (cty's
// standard library) and the diagnostics about them. It knows nothing of
// providers' protocol, state files or planning; it imports only
// host/source and schema from pier. Start reading at [Load] and
// [Deployment.Resolve].
//
// # Blocks
//
//	provider "local" { builtin = "local" }
//	provider "mine"  { executable = "./bin/provider", args = ["-v"], env = { K = "v" }, operations = ["destroy"], parallelism = 4 }
//	provider "aws"   { terraform = "./terraform-provider-aws", config = { region = "eu-west-1" } }
//	variable "n"     { type = number, default = 2, sensitive = false }  (validation blocks: conditions.go)
//	resource "state" { provider = provider.local, type = "state_file", inputs = { name = "state.json" } }
//	resource "db"    { provider = provider.local, type = "memo", state = resource.state, inputs = { value = var.n } }
//	deployment "web" { resource "app" { … } deployment "inner" { … } }
//	output "db"      { value = resource.db.outputs.value, sensitive = false }
//	locals           { url = "db://${resource.db.outputs.value}", name = "app-${var.n}" }
//	import           { for_each = var.ids, to = resource.site[each.key], id = each.value }  (import.go)
//	removed          { from = resource.old, provider = provider.local }                     (removed.go)
//
// (import and removed blocks put one argument on a line; they are shown on
// one here for brevity.) A resource's refresh = true makes every plan read
// it (refresh.go); its lifecycle block may hold precondition and
// postcondition blocks (resource_conditions.go).
//
// Provider, variable, output and locals blocks are top level only. A
// local is a named expression read as local.NAME from any block; its own
// references resolve from the top level wherever it is read (see
// localDecl). A relative
// executable or terraform path that contains a slash resolves against the
// deployment directory; a bare name is left for the engine to find in PATH.
// Provider attributes, resource types and variable defaults are evaluated
// at Load, so they may use var, path and functions but not resources.
//
// # Addresses and scoping
//
// A resource in a deployment block is addressed by the dotted path of the
// deployment blocks around it, e.g. web.app (state key
// deployments.web.resources.app). Instances of count and for_each are
// app[0] and app["key"].
//
// In an expression, resource.X means the resource X of the innermost
// enclosing deployment block that declares one, falling back outward to the
// top level. deployment.D likewise finds the innermost visible deployment
// block D; further steps go inward only, as in
// deployment.web.deployment.inner.resource.app.outputs.url. A reference to
// a resource reads resource.X.inputs.NAME (known as soon as X's inputs are)
// or resource.X.outputs.NAME (known once X has been applied); a resource
// with count or for_each is a tuple or object of such instances, indexed as
// resource.X[0] or resource.X["key"].
//
// Other variables are var.NAME, local.NAME, path.root (the deployment directory,
// absolute), count.index in a resource with count, and each.key and
// each.value in a resource with for_each.
//
// # Resolving
//
// Load parses and decodes every file once, resolves every reference
// statically, reports cycles with their whole path, and orders the blocks
// so each comes after what it reads. Resolve evaluates blocks in that
// order. An output not in the known outputs evaluates to an unknown value
// marked with the address it waits for; a resource whose inputs contain
// such a value is Blocked, waiting on the marked addresses, and its
// partial inputs carry [source.Unknown] where values are missing. Numbers
// in inputs and outputs are json.Number.
//
// Each evaluation is cached. Every instance's value carries a read mark
// (a cty mark) naming it, and marks flow through every expression and
// function, so an evaluated value says which instances it read. A later
// Resolve re-evaluates only the instances that read an instance whose
// outputs or inputs changed; a block whose count or for_each read it, or
// that reads a block whose set of instances changed, is evaluated whole.
// So a round costs the size of the change plus one pass over the known
// outputs that are read and one that lists the snapshot.
//
// ResolveHandlers (handlersfirst.go) may come before the first Resolve:
// it evaluates only the state handlers, when they read no resource and
// nothing makes a first Resolve with no outputs known differ from a
// later one, so that a plan reads its states first and its first Resolve
// knows the recorded outputs.
//
// count and for_each may depend on anything, outputs included. While their
// value is unknown the resource is Blocked structurally (its address has no
// key) and references to it are unknown too. Known values (literals,
// variables, inputs of other resources) are the common case and expand in
// the first round. One block expands to at most 100,000 instances.
//
// # Sensitivity
//
// Sensitive values (of sensitive variables, of attributes a Terraform
// resource's outputs list as sensitive, of outputs echoing a sensitive
// input) carry [SensitiveMark], which HCL and cty carry through every
// expression. A resource's marked input paths become its
// [source.Resource.SensitiveInputs]; a marked output must be declared
// sensitive, and a marked for_each is refused. See sensitive.go.
//
// # Diagnostics
//
// Configuration errors are [*DiagnosticsError] values holding
// hcl.Diagnostics, each with a file:line:col range. The local types memo,
// and exec with once = true, keep their result in state: on a builtin =
// "local" provider they need state = resource.HANDLER, checked at Load.
package hclsource
