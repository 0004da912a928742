#!/bin/sh
# Reads one request and exits with status 3 without answering.
read -r request
echo "faulty: out of cheese" >&2
exit 3
