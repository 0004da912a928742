# pier's hello-world deployment: `make demo` applies it, re-applies it
# unchanged, changes the greeting, and destroys it.

variable "greeting" {
  type    = string
  default = "hello"
}

# pier's own local adapter: file, exec, memo and state_file.
provider "local" {
  builtin = "local"
}

# A provider written in Python, from examples/providers. It declares the
# optional destroy operation, so pier can remove what it made.
provider "kv" {
  executable = "../providers/python-kv/provider.py"
  operations = ["destroy"]
}

# Where the state of every stateful resource below is recorded: an
# append-only log of JSON Patch events.
resource "state" {
  provider = provider.local
  type     = "state_file"
  inputs   = { name = "hello.state.json" }
}

# A memo keeps the first value it was given, for ever.
resource "first" {
  provider = provider.local
  type     = "memo"
  state    = resource.state
  inputs   = { initialize_with = "the first apply" }
}

# exec with once = true runs one time and keeps its output in state.
resource "born" {
  provider = provider.local
  type     = "exec"
  state    = resource.state
  inputs = {
    executable = "/bin/sh"
    args       = ["-c", "date -u +%Y-%m-%dT%H:%M:%SZ"]
    once       = true
  }
}

# A file whose contents come from the outputs of the two above.
resource "note" {
  provider = provider.local
  type     = "file"
  state    = resource.state
  inputs = {
    name     = "hello.txt"
    contents = "Deployed by pier: ${resource.first.outputs.value}, at ${trimspace(resource.born.outputs.stdout)}.\n"
  }
}

# The greeting lives in the Python provider's key-value store.
resource "greeting" {
  provider = provider.kv
  type     = "kv"
  state    = resource.state
  inputs   = { dir = "kv", key = "greeting", value = var.greeting }
}

output "greeting_file" {
  value = resource.greeting.outputs.path
}

output "note" {
  value = resource.note.inputs.contents
}
