provider "local" {
  builtin = "local"
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
  inputs   = { value = "db" }
}

resource "node" {
  provider = provider.local
  type     = "exec"
  count    = 2
  inputs   = { db = resource.db.outputs.value }
}

deployment "web" {
  resource "app" {
    provider   = provider.local
    type       = "memo"
    state      = resource.state
    depends_on = [resource.node]
    inputs     = { db = resource.db.outputs.value }
  }

  deployment "inner" {
    resource "svc" {
      provider = provider.local
      type     = "exec"
      for_each = { a = 1 }
      inputs   = { app = resource.app.outputs.url, "quoted\"key" = each.value }
    }
  }
}

resource "report" {
  provider = provider.local
  type     = "exec"
  inputs   = { svc = deployment.web.deployment.inner.resource.svc["a"].inputs.app }
}
