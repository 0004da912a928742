provider "local" {
  builtin = "local"
}

variable "names" {
  type    = set(string)
  default = ["a", "b"]
}

variable "replicas" {
  type    = number
  default = 2
}

resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "state.json" }
}

resource "node" {
  count    = var.replicas
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { index = count.index, name = "node-${count.index}" }
}

resource "site" {
  for_each = { for n in var.names : n => upper(n) }
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs = {
    key   = each.key
    value = each.value
    node  = resource.node[0].outputs.id
  }
}

resource "all" {
  provider = provider.local
  type     = "exec"
  inputs = {
    names = [for n in resource.node : n.inputs.name]
    first = resource.site["a"].inputs.value
  }
}
