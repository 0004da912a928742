// Command terraform-provider-fixturesdk is a small, real Terraform provider
// built on terraform-plugin-sdk/v2 and served over plugin protocol 5. It is the
// protocol 5 counterpart of ../fixture for pier's Terraform bridge tests, and
// covers what the SDK expresses differently: list and set blocks (TypeList and
// TypeSet of a Resource), a single block (TypeList with MaxItems 1), ForceNew,
// a StateUpgrader, passthrough import and a data source.
//
// Start at provider.go; dir_resource.go is fixturesdk_dir and dir.go holds the
// file system work, confined below the configured root with os.Root.
package main
