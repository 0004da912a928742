provider "local" {
  builtin = "local"
}

variable "tags" {
  type    = map(string)
  default = { team = "core", tier = "web" }
}

resource "f" {
  provider = provider.local
  type     = "exec"
  inputs = {
    format     = format("%s-%03d", "app", 7)
    upper      = upper("abc")
    lower      = lower("ABC")
    jsonencode = jsonencode({ a = 1, b = [true, null] })
    jsondecode = jsondecode("{\"x\": [1, 2.5]}")
    merge      = merge(var.tags, { tier = "db" })
    concat     = concat(["a"], ["b", "c"])
    length     = length(var.tags)
    keys       = keys(var.tags)
    values     = values(var.tags)
    lookup     = lookup(var.tags, "missing", "fallback")
    join       = join(",", ["x", "y"])
    split      = split("/", "a/b/c")
    replace    = replace("a-b-c", "-", "_")
    tostring   = tostring(12)
    tonumber   = tonumber("1.5")
    root       = path.root != ""
    big        = 12345678901234567890
  }
}
