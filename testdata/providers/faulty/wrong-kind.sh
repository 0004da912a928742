#!/bin/sh
# Answers a request with a valid response of the wrong kind.
read -r request
echo "faulty: answering with an update" >&2
echo "{\"updateResourceResponse\":{\"outputProperties\":{}}}"
exec cat >/dev/null
