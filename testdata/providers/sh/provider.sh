#!/bin/sh
# A pier test provider in POSIX sh with jq. It speaks the NixOps4 resource
# protocol v0: one JSON request per line on stdin, one JSON response per
# line on stdout, logs on stderr; it exits when stdin closes.
#
# Resource types:
#   echo  stateless. inputs: text (required). outputs: echo (the text).
#   file  stateful. inputs: path, content. Writes the file. outputs: path,
#         size. Supports the optional operation destroy (removes the file).
# Unknown types and unknown or missing inputs get an errorResponse.
set -u

respond() { printf '%s\n' "$1"; }

fail() {
	respond "$(jq -cn --arg m "$1" '{errorResponse: {message: $m}}')"
}

# check_inputs JSON ALLOWED...: prints an error message for the first
# unknown or missing input, nothing when the inputs are right.
check_inputs() {
	inputs=$1
	shift
	allowed=$(printf '%s\n' "$@" | jq -R . | jq -cs .)
	printf '%s' "$inputs" | jq -r --argjson allowed "$allowed" '
		(keys - $allowed) as $unknown | ($allowed - keys) as $missing |
		if ($unknown | length) > 0 then "unknown input " + ($unknown | join(", "))
		elif ($missing | length) > 0 then "missing input " + ($missing | join(", "))
		else empty end'
}

write_file() {
	inputs=$1
	problem=$(check_inputs "$inputs" path content)
	if [ -n "$problem" ]; then
		fail "file: $problem"
		return
	fi
	path=$(printf '%s' "$inputs" | jq -r .path)
	printf '%s' "$inputs" | jq -j .content >"$path" || {
		fail "file: cannot write $path"
		return
	}
	size=$(wc -c <"$path" | tr -d ' ')
	jq -cn --arg kind "$2" --arg path "$path" --argjson size "$size" \
		'{($kind): {outputProperties: {path: $path, size: $size}}}'
}

while IFS= read -r line; do
	kind=$(printf '%s' "$line" | jq -r 'keys[0]')
	echo "sh-provider: handling $kind" >&2
	case $kind in
	createResourceRequest)
		type=$(printf '%s' "$line" | jq -r .createResourceRequest.type)
		inputs=$(printf '%s' "$line" | jq -c .createResourceRequest.inputProperties)
		case $type in
		echo)
			problem=$(check_inputs "$inputs" text)
			if [ -n "$problem" ]; then
				fail "echo: $problem"
			else
				respond "$(printf '%s' "$inputs" | jq -c '{createResourceResponse: {outputProperties: {echo: .text}}}')"
			fi
			;;
		file)
			if [ "$(printf '%s' "$line" | jq .createResourceRequest.isStateful)" != true ]; then
				fail "file resources must be stateful"
			else
				write_file "$inputs" createResourceResponse
			fi
			;;
		*) fail "unknown resource type \"$type\"" ;;
		esac
		;;
	updateResourceRequest)
		type=$(printf '%s' "$line" | jq -r .updateResourceRequest.resource.type)
		inputs=$(printf '%s' "$line" | jq -c .updateResourceRequest.inputProperties)
		case $type in
		file) write_file "$inputs" updateResourceResponse ;;
		*) fail "resource type \"$type\" cannot be updated" ;;
		esac
		;;
	destroyResourceRequest)
		type=$(printf '%s' "$line" | jq -r .destroyResourceRequest.resource.type)
		case $type in
		file)
			rm -f "$(printf '%s' "$line" | jq -r .destroyResourceRequest.resource.inputProperties.path)"
			respond '{"destroyResourceResponse":{}}'
			;;
		*) fail "resource type \"$type\" cannot be destroyed" ;;
		esac
		;;
	*) fail "unsupported request $kind" ;;
	esac
done
