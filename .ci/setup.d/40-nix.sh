#!/usr/bin/env bash
# Nix for the flake deployment source (host/nixsource): Debian's nix-bin
# (Nix 2.8). As root it uses the local store directly, without a daemon.
# Debian's /etc/nix/nix.conf turns the build sandbox off, so test
# derivations may use the host's /bin/sh and coreutils.
set -euo pipefail
if ! command -v nix >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nix-bin >/dev/null
fi
# Initialise the store once, offline, so the first test does not pay for it.
nix --extra-experimental-features 'nix-command flakes' --option substituters '' \
  eval --expr 'builtins.nixVersion' >/dev/null
nix --version
