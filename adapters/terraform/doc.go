// Package terraform is the Terraform bridge: a v0 resource provider, built on
// [providersdk], whose resource types are those of one Terraform provider
// binary. `pier adapter terraform --plugin PATH` runs it.
//
// Under pier's engine one Terraform provider process serves a whole
// command: `pier tf hold` ([Hold]) starts it, reads its schema and
// configures it once, and every bridge of the command (`pier adapter
// terraform --attach`) attaches to it, getting the address, TLS material
// and schema on its configuration descriptor ([ReadAttachment]), over a
// gRPC connection of pier's own (internal/unarygrpc) that runs each call
// on the bridge's goroutine; the bridges' calls then run concurrently on
// the one provider, as under Terraform. Run alone, a bridge starts the provider
// itself ([New]) and keeps it for its whole life. Each v0 operation
// becomes plugin protocol calls:
//
//   - create: PlanResourceChange from a null prior, then ApplyResourceChange.
//   - update: UpgradeResourceState of the stored JSON first, then
//     PlanResourceChange, then ApplyResourceChange, in place only: an
//     update whose plan requires replacement is refused
//     ([ReplaceRequiredError]), because the engine replaces with a
//     recorded destroy and create of its own. Nothing when the plan
//     changes nothing.
//   - preview: the update's UpgradeResourceState and PlanResourceChange,
//     without applying. It replaces as Terraform decides it: when a value
//     at a requires_replace path differs (or may differ) between prior
//     and planned state.
//   - destroy: plan and apply to null. read: ReadResource. import:
//     ImportResourceState, then ReadResource.
//   - types named "data-source-<name>" are data sources: ReadDataSource on
//     create and update.
//
// A preview returns the provider's plan to the host, which hands it back
// on the create or update it previewed, from a saved plan too: that
// request then asks only ApplyResourceChange (see savedPlan).
//
// Outputs are the whole Terraform state object as JSON, plus the reserved
// key [ReservedKey] holding what Terraform keeps beside state: the private
// bytes (base64), the schema version and the sensitive attribute paths.
//
// The provider's own configuration arrives once, on a file descriptor
// ([ReadConfig]), and is validated and sent to the provider lazily, on the
// first request that needs a configured provider. It never enters inputs,
// outputs or logs. The request stream is served from a copy of stdin
// ([providersdk.TakeStdin]), so the provider and what it runs get /dev/null instead.
//
// The package imports [schema], [providersdk] and its own internal packages,
// never the engine. Start at [Bridge]; the protocol client is in
// internal/tfclient and value conversion in internal/tfvalue.
package terraform
