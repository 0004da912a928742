// Package builtin lists the adapters the pier binary ships (`pier adapter
// NAME`), with what each publishes about itself ([schema.Capabilities]).
// Whoever runs the engine or loads a deployment (cmd/pier, rpcapi) passes
// this on, so that neither the engine nor the HCL source hard-codes any
// adapter. It imports the adapters, so host packages must not import it.
package builtin

import (
	"github.com/pierhq/pier/adapters/local"
	"github.com/pierhq/pier/adapters/postgres"
	"github.com/pierhq/pier/schema"
)

// Capabilities are the builtin adapters by name.
var Capabilities = map[string]schema.Capabilities{
	"local":    local.Capabilities,
	"postgres": postgres.Capabilities,
}
