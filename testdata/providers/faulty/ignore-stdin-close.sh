#!/bin/sh
# Answers every request correctly but ignores the end of its input, so
# Close has to kill it after the grace period.
trap "" INT TERM
while read -r request; do
	echo "{\"createResourceResponse\":{\"outputProperties\":{}}}"
done
echo "faulty: stdin closed, lingering" >&2
sleep 600
