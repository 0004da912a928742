provider "local" {
  builtin = "local"
}

variable "prefix" {
  type    = string
  default = "app"
}

resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}

resource "db" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { value = "${var.prefix}-db", port = 5432 }
}

resource "web" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs = {
    db   = resource.db.outputs.value
    name = upper(resource.db.inputs.value)
  }
}

output "db" {
  value = resource.db.outputs.value
}
