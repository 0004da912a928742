#!/bin/sh
# Reads one request and dies like a panicking Go program (exit status 2).
read -r request
printf "%s\n" "faulty: about to index" "panic: runtime error: index out of range [3] with length 3" "" "goroutine 1 [running]:" "main.main()" "	/src/provider/main.go:12 +0x1d" >&2
exit 2
