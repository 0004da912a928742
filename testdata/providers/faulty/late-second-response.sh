#!/bin/sh
# Answers each request, then writes a second response a moment later.
while read -r request; do
	r="{\"createResourceResponse\":{\"outputProperties\":{}}}"
	echo "$r"
	sleep 0.2
	echo "$r"
done
