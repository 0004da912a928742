#!/usr/bin/env bash
# pier ui's tests drive a real browser: Debian's chromium, headless, through
# chromedp. fonts-dejavu-core gives the screenshots legible text.
set -euo pipefail
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
