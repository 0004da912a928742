#!/bin/sh
# Answers with a 100 MB line (the default limit is 64 MiB).
read -r request
echo "faulty: dumping 100 MB" >&2
head -c 100000000 /dev/zero | tr "\\000" a
echo
exec cat >/dev/null
