#!/usr/bin/env bash
# PostgreSQL for the pg_state handler's tests (adapters/postgres): Debian's
# postgresql server binaries. The tests start their own server with initdb
# and pg_ctl in a temporary directory (adapters/postgres/pgtest), on a
# socket in that directory and a free loopback port; as root they run it
# as the unprivileged user nobody, because PostgreSQL refuses to run as
# root. A cluster Debian's package may create is left alone and unused.
set -euo pipefail
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
getent passwd nobody >/dev/null || { echo "60-postgres: user nobody is missing; the test server needs an unprivileged user" >&2; exit 1; }
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
"$bin/initdb" --version
