provider "local" {
  builtin = "local"
}

provider "tool" {
  executable = "./tool"
  operations = ["destroy"]
}

variable "names" {
  type    = list(string)
  default = ["a", "b"]
}

variable "n" {
  type    = number
  default = 2
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
  inputs   = { value = "db", size = 10 }
}

resource "node" {
  provider = provider.tool
  type     = "vm"
  count    = var.n
  inputs   = { db = resource.db.outputs.value, index = count.index }
}

resource "site" {
  provider   = provider.tool
  type       = "site"
  for_each   = toset(var.names)
  depends_on = [resource.db]
  inputs     = { name = each.key, first = resource.node[0].inputs.index }
}

deployment "web" {
  resource "app" {
    provider = provider.local
    type     = "memo"
    state    = resource.state
    inputs   = { db = resource.db.outputs.value, list = [1, "two", true, null] }
  }
}

output "app" {
  value = deployment.web.resource.app.inputs
}
