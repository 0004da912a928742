// Package builtin is the list of adapters the pier binary ships (`pier
// adapter NAME`), each with what it publishes about itself
// ([schema.Capabilities]). It is the one list: whoever runs the engine or
// loads a deployment (cmd/pier, rpcapi) passes it on, so that neither the
// engine, the HCL source nor the RPC service hard-codes any adapter. It
// imports the adapters, so host packages must not import it.
package builtin

import (
	"github.com/pierhq/pier/adapters/local"
	"github.com/pierhq/pier/adapters/postgres"
	"github.com/pierhq/pier/adapters/terraform"
	"github.com/pierhq/pier/schema"
)

// Capabilities are the shipped adapters by name: local and postgres,
// which a deployment names with builtin = NAME, and the Terraform bridge
// (a [schema.Capabilities.Bridge]), which runs for terraform = PLUGIN.
var Capabilities = schema.Adapters{
	"local":     local.Capabilities,
	"postgres":  postgres.Capabilities,
	"terraform": terraform.Capabilities,
}
