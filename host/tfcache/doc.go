// Package tfcache finds Terraform provider packages already on this
// machine, in the directories and layouts Terraform itself uses, so that a
// provider declared as source = "hashicorp/time" + version = "0.14.2" runs
// the package an existing Terraform user already has. It never downloads.
//
// It owns source address parsing and the search order; it knows nothing
// about deployments or lock files (host/lockfile hashes what it finds).
// Start at [Find].
package tfcache
