#!/bin/sh
# Reads one request and never answers; sleep is a child in its process group.
read -r request
echo "faulty: thinking very hard" >&2
sleep 600
echo "{\"createResourceResponse\":{\"outputProperties\":{}}}"
