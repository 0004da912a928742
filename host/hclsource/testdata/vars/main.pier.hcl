provider "local" {
  builtin = "local"
}

variable "name" {
  default = "from-default"
}

variable "port" {
  type    = number
  default = 80
}

variable "hosts" {
  type    = list(string)
  default = []
}

variable "settings" {
  type = object({
    debug = bool
    level = optional(number, 3)
  })
  default = { debug = false }
}

resource "v" {
  provider = provider.local
  type     = "exec"
  inputs = {
    name     = var.name
    port     = var.port
    hosts    = var.hosts
    settings = var.settings
  }
}
