#!/usr/bin/env bash
# Figures for pier ui (issue 22), in a real headless chromium: the time
# from starting pier ui to the graph being drawn, for 100 and 1000 bridged
# time_static resource blocks, with pier ui's peak RSS; and an apply of
# 1000 memos watched live through pier apply --ui: the page's final
# counts against the CLI's summary, and how long after the CLI's summary
# the page has caught up. Nothing here is a test: it prints figures.
#
#   bench/ui.sh [PIER]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
pier_bins "$@"
for n in 100 1000; do
  go run ./bench/uibench -pier "${bins[0]}" -tf "$REAL" -graph "$n"
done
go run ./bench/uibench -pier "${bins[0]}" -memos 1000
