provider "p" {
  executable = "/bin/p"
}

resource "a" {
  provider = provider.p
  type     = "t"
  inputs   = { from = "hcl", b = resource.b.inputs.from }
}
