#!/bin/sh
# Answers with a line that is not JSON, then keeps running.
read -r request
echo "faulty: printing garbage" >&2
echo "Creating resource... done!"
exec cat >/dev/null
