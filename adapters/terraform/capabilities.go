package terraform

import "github.com/pierhq/pier/schema"

// Capabilities is what the bridge publishes to the host that runs it (as
// `pier adapter terraform` for a provider declared terraform = PLUGIN):
// the optional operations it implements. Preview lets the plan show the
// replacements Terraform providers require. Its resource types are its
// plugin's, known only from the plugin's schema.
var Capabilities = schema.Capabilities{
	Bridge:     true,
	Operations: []schema.Operation{schema.OperationDestroy, schema.OperationRead, schema.OperationImport, schema.OperationPreview},
}
