# This file is maintained automatically by "pier providers lock".
# Manual edits may be lost in future updates.

provider "kv" {
  executable = "../providers/python-kv/provider.py"
  hashes = [
    "sha256:00ff",
  ]
}

provider "nixy" {
  executable = "/nix/store/abc-nixy/bin/nixy"
  store_path = "/nix/store/abc-nixy"
}

provider "registry.terraform.io/hashicorp/time" {
  version = "0.14.2"
  hashes = [
    "h1:a",
    "h1:b",
  ]
}

provider "tf" {
  terraform = "bin/terraform-provider-x"
  hashes = [
    "sha256:11ee",
  ]
}

module "git::file:///srv/mods.git//site?ref=main" {
  commit = "0123456789abcdef0123456789abcdef01234567"
}
