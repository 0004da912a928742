#!/bin/sh
# Answers with an id of the raw bytes FF FE C3: JSON whose string is not
# UTF-8. Decoded leniently it would read as three U+FFFD.
read -r request
echo "faulty: answering with bytes that are not UTF-8" >&2
printf '{"createResourceResponse":{"outputProperties":{"id":"\377\376\303"}}}\n'
exec cat >/dev/null
