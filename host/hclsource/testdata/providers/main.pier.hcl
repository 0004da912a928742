variable "jobs" {
  type    = number
  default = 4
}

provider "local" {
  builtin = "local"
}

provider "script" {
  executable  = "./bin/provider.py"
  args        = ["--verbose"]
  env         = { MODE = "test" }
  operations  = ["destroy", "read"]
  parallelism = var.jobs
}

provider "onpath" {
  executable = "my-provider"
}

provider "null" {
  terraform  = "./terraform-provider-null"
  config     = { region = "eu", retries = 3 }
  operations = ["destroy", "import"]
}

resource "r" {
  provider = provider.script
  type     = "thing"
}
