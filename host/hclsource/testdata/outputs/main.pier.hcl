provider "local" {
  builtin = "local"
}

variable "token" {
  type      = string
  default   = "s3cret"
  sensitive = true
}

resource "a" {
  provider = provider.local
  type     = "exec"
  inputs   = { token = var.token }
}

output "static" {
  value = { name = "x", n = 1 }
}

output "from_inputs" {
  value = resource.a.inputs
  sensitive = true
}

# a has a sensitive input, so every output of it is sensitive.
output "from_outputs" {
  value     = resource.a.outputs.stdout
  sensitive = true
}

output "secret" {
  value     = var.token
  sensitive = true
}
