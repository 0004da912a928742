// Package tfschema checks, at plan time, the inputs of resources on a
// Terraform provider (a `terraform = …` declaration) against that
// provider's schema, so that a misspelt attribute is a configuration error
// with a file:line:col before anything is applied, not a provider error
// halfway through an apply.
//
// It owns three things: fetching a provider's schema by running pier's own
// `pier tf schema --json --plugin PATH` (once per plugin path per [Fetcher];
// the bridge's schema types stay in adapters/terraform, which the host must
// not import), walking input JSON against the schema's attribute paths
// ([Type.Check]), and finding an input key's position in the deployment's
// HCL source ([Locator]).
//
// It knows nothing about plans: the engine decides which resources need
// checking (only those it will create or update, so that an unchanged
// deployment starts no Terraform provider). Start with [Fetcher.Schema] and
// [Type.Check].
package tfschema
