#!/bin/sh
# fuzz.sh runs every fuzz target of the module for a while each (default
# 10 minutes, FUZZTIME overrides, e.g. FUZZTIME=30s), one after another.
# It is not part of CI: a fuzz run of this length is a soak test, run by
# hand before a release or after a change to a parser or to patch
# application. A failing input is written under the package's
# testdata/fuzz/NAME/ by go test; commit it, it becomes a regression case.
#
#   bench/fuzz.sh                      all targets, 10 minutes each
#   FUZZTIME=1m bench/fuzz.sh statefile  only the targets under ./statefile
set -eu
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-10m}
filter=${1:-}
# Each line: package directory and target name, found from the sources so
# that a new target is fuzzed without editing this script.
targets=$(grep -rl --include='*_test.go' '^func Fuzz' . | grep -v '/testdata/' | sort | while read -r f; do
	dir=$(dirname "$f")
	grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed "s|^func |$dir |"
done)
echo "$targets" | while read -r dir name; do
	[ -n "$dir" ] || continue
	case "$dir" in *"$filter"*) ;; *) continue ;; esac
	echo "== $dir $name ($FUZZTIME)"
	if ! go test "$dir" -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME"; then
		echo "FAIL: $dir $name" >&2
		echo "$dir $name" >>"${TMPDIR:-/tmp}/pier-fuzz-failed.$$"
	fi
done
if [ -s "${TMPDIR:-/tmp}/pier-fuzz-failed.$$" ]; then
	echo "failed targets:" >&2
	cat "${TMPDIR:-/tmp}/pier-fuzz-failed.$$" >&2
	rm -f "${TMPDIR:-/tmp}/pier-fuzz-failed.$$"
	exit 1
fi
rm -f "${TMPDIR:-/tmp}/pier-fuzz-failed.$$"
echo "all fuzz targets passed"
