// Package lockfile reads, writes and checks `.pier.lock.hcl`, the record
// of which provider programs a deployment was reviewed with. It has the
// shape of Terraform's `.terraform.lock.hcl`: one `provider` block per
// provider, with a version and `hashes` in Terraform's "scheme:value"
// syntax.
//
//   - A Terraform provider named by source and version is keyed by its
//     source address and locked by `h1:`, Terraform's own hash of the
//     unpacked package directory (Go's dirhash Hash1, the scheme Terraform
//     uses in internal/getproviders PackageHashV1), so a lock file entry
//     means the same package to pier and to Terraform.
//   - A provider executable (v0, or a Terraform provider given by path) is
//     keyed by its declaration name and locked by `sha256:` of the file.
//   - An executable in the Nix store is locked by its store path: the path
//     names its content already, and the store is read-only.
//
// Built-in providers are part of pier itself and are not locked.
//
// The package owns the file format, the identities above and the check;
// it does not start providers. Start at [Identify] and [File.Verify];
// [Source] applies the check to every provider a deployment source
// declares, before the engine can start one.
package lockfile
