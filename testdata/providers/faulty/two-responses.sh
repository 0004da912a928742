#!/bin/sh
# Answers one request with two response lines in one write.
read -r request
echo "faulty: answering twice" >&2
r="{\"createResourceResponse\":{\"outputProperties\":{}}}"
printf "%s\n%s\n" "$r" "$r"
exec cat >/dev/null
