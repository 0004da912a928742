# A real Terraform provider, HashiCorp's terraform-provider-time, driven
# through pier's engine by the Terraform bridge (pier adapter terraform).
# Build the provider first: `make tfproviders` (from the top of the
# repository) puts it in bin/tfproviders.

variable "time_provider" {
  type        = string
  description = "path of the terraform-provider-time binary, relative to this directory"
  default     = "../../bin/tfproviders/terraform-provider-time"
}

# Changing this replaces the time_static: its triggers force a new object,
# so it records a new timestamp.
variable "release" {
  type    = string
  default = "v1"
}

variable "grace_days" {
  type    = number
  default = 30
}

provider "local" {
  builtin = "local"
}

# The engine starts this provider once per command (pier tf hold), with
# bridges (`pier adapter terraform --attach`) sharing it,
# only when one of its resources has something to do. The configuration
# (none is needed by the time provider) would travel on a file descriptor,
# never in argv or state.
provider "time" {
  terraform = var.time_provider
  config    = {}
}

resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "time.state.json" }
}

# The moment release var.release was first deployed.
resource "released" {
  provider = provider.time
  type     = "time_static"
  state    = resource.state
  inputs = {
    triggers = { release = var.release }
  }
}

# The end of the grace period after that release: its base is the static's
# output, so the engine runs it after the static, and replaces it too when
# the static changes.
resource "grace_ends" {
  provider = provider.time
  type     = "time_offset"
  state    = resource.state
  inputs = {
    base_rfc3339 = resource.released.outputs.rfc3339
    offset_days  = var.grace_days
  }
}

output "released_at" {
  value = resource.released.outputs.rfc3339
}

output "grace_ends_at" {
  value = resource.grace_ends.outputs.rfc3339
}
