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
  inputs   = { value = "root-db" }
}

deployment "web" {
  # web.db shadows the top-level db inside this block.
  resource "db" {
    provider = provider.local
    type     = "memo"
    state    = resource.state
    inputs   = { value = "web-db" }
  }

  resource "app" {
    provider = provider.local
    type     = "memo"
    state    = resource.state
    inputs = {
      db    = resource.db.inputs.value
      state = resource.state.inputs.name
    }
  }

  deployment "inner" {
    resource "svc" {
      provider = provider.local
      type     = "memo"
      state    = resource.state
      inputs = {
        db  = resource.db.inputs.value
        url = deployment.web.resource.app.outputs.url
      }
    }
  }
}

resource "top" {
  provider = provider.local
  type     = "exec"
  inputs = {
    app = deployment.web.resource.app.inputs.db
    svc = deployment.web.deployment.inner.resource.svc.inputs.db
  }
}
