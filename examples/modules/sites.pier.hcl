# Several sites from one module: modules/site is written once and made
# once per entry of var.sites. `pier test --dir examples/modules` runs
# tests/sites.pier.test.hcl, which tests the module through this
# deployment, against a temporary state (make test runs it too, see
# example_test.go).

variable "sites" {
  type        = map(string)
  description = "the sites to make: name => title"
  default = {
    blog = "Notes"
    shop = "The shop"
  }
}

provider "local" {
  builtin = "local"
}

# A relative name: under pier test it lives in the test's temporary
# directory.
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "sites.state.json" }
}

module "site" {
  source   = "./modules/site"
  for_each = var.sites
  name     = each.key
  title    = each.value
  # A module sees only what it is given: the state handler and the
  # provider cross into it explicitly.
  state     = resource.state
  providers = { local = provider.local }
}

output "pages" {
  value = { for name, site in module.site : name => site.page }
}
