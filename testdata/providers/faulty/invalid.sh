#!/bin/sh
# Answers with a response that does not match the protocol schema.
read -r request
echo "faulty: misspelling outputProperties" >&2
echo "{\"createResourceResponse\":{\"outputs\":{\"a\":1}}}"
exec cat >/dev/null
