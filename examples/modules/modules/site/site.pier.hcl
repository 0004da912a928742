# One site: a page whose heading is the title the site was first made
# with (a memo keeps its first value), in the directory named after the
# site.

variable "name" {
  type        = string
  description = "the site's name, also its directory"
  validation {
    condition     = length(regexall("^[a-z][a-z0-9-]*$", var.name)) > 0
    error_message = "a site's name is its directory: lower-case letters, digits and dashes, starting with a letter; got \"${var.name}\"."
  }
}

variable "title" {
  type = string
  validation {
    condition     = strlen(var.title) > 0 && strlen(var.title) <= 40
    error_message = "a title has 1 to 40 characters; \"${var.title}\" has ${strlen(var.title)}."
  }
}

variable "state" {
  description = "the state handler that records the site"
}

resource "title" {
  provider = provider.local
  type     = "memo"
  state    = var.state
  inputs   = { initialize_with = var.title }
}

resource "page" {
  provider = provider.local
  type     = "file"
  state    = var.state
  inputs = {
    name     = "${var.name}/index.html"
    contents = "<h1>${resource.title.outputs.value}</h1>\n"
  }
}

output "page" {
  value = resource.page.inputs.name
}

output "heading" {
  value = resource.title.outputs.value
}
