#!/bin/sh
# Starts a response line and exits before finishing it.
read -r request
echo "faulty: writing half a response" >&2
printf "%s" "{\"createResourceResponse\":{\"outputPro"
exit 0
