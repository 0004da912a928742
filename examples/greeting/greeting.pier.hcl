# A small deployment with its own tests: `pier test --dir examples/greeting`
# runs tests/greeting.pier.test.hcl against a temporary state (make test
# runs it too, see example_test.go).

variable "name" {
  type    = string
  default = "pier"
  validation {
    condition     = length(regexall("^[A-Za-z][A-Za-z -]*$", var.name)) > 0
    error_message = "name must be letters, spaces and dashes, starting with a letter; got \"${var.name}\"."
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
  inputs   = { name = "greeting.state.json" }
}

# The first greeting is kept for ever.
resource "first" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "Hello, ${var.name}!" }
}

resource "note" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs = {
    name     = "greeting.txt"
    contents = "${resource.first.outputs.value}\n"
  }
}

check "greeting_is_short" {
  assert {
    condition     = strlen(resource.first.inputs.initialize_with) <= 40
    error_message = "the greeting is ${strlen(resource.first.inputs.initialize_with)} characters long."
  }
}

output "greeting" {
  value = resource.first.outputs.value
}
