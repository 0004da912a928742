#!/bin/sh
# A stateless file: a pier resource provider in POSIX sh and jq.
#
# Resource type "file" writes inputs.content to inputs.path and reports the
# path and the content's size. It speaks the v0 JSON-lines protocol (see
# docs/providers.md): one request per stdin line, one response per stdout
# line, exit when stdin closes.

# reply_error prints one errorResponse line. stdout carries nothing but
# response lines.
reply_error() {
	jq -cn --arg m "$1" '{errorResponse: {message: $m}}'
}

log() {
	printf 'sh-file: %s\n' "$1" >&2
}

# handle_write KIND BODY_FILTER: BODY_FILTER selects the request body whose
# inputProperties describe the file; KIND is the response to send.
handle_write() {
	kind=$1 body=$2 line=$3
	unknown=$(printf '%s\n' "$line" | jq -r "$body.inputProperties | keys - [\"path\", \"content\"] | join(\", \")") || {
		reply_error "inputProperties must be an object"
		return
	}
	if [ -n "$unknown" ]; then
		reply_error "unknown input field(s) $unknown (known: path, content)"
		return
	fi
	if ! printf '%s\n' "$line" | jq -e "$body.inputProperties | (.path | type == \"string\" and length > 0) and (.content | type == \"string\")" >/dev/null; then
		reply_error "inputs \"path\" (non-empty) and \"content\" must be strings"
		return
	fi
	path=$(printf '%s\n' "$line" | jq -r "$body.inputProperties.path")
	# jq -j writes the content byte for byte, keeping trailing newlines that
	# a shell command substitution would strip.
	if ! printf '%s\n' "$line" | jq -j "$body.inputProperties.content" 2>/dev/null >"$path"; then
		reply_error "write $path: cannot create or write the file"
		return
	fi
	size=$(wc -c <"$path" | tr -d ' ')
	log "wrote $path ($size bytes)"
	jq -cn --arg k "$kind" --arg p "$path" --argjson s "$size" '{($k): {outputProperties: {path: $p, size: $s}}}'
}

while IFS= read -r line || [ -n "$line" ]; do
	[ -z "$line" ] && continue
	if ! kind=$(printf '%s\n' "$line" | jq -r 'if type == "object" and length == 1 then keys[0] else error("not a one-key object") end' 2>/dev/null); then
		reply_error "request is not a JSON object with exactly one key"
		continue
	fi
	case $kind in
	createResourceRequest) body=.createResourceRequest typefilter=.createResourceRequest.type response=createResourceResponse ;;
	updateResourceRequest) body=.updateResourceRequest typefilter=.updateResourceRequest.resource.type response=updateResourceResponse ;;
	*)
		reply_error "unsupported request \"$kind\""
		continue
		;;
	esac
	rtype=$(printf '%s\n' "$line" | jq -r "$typefilter")
	if [ "$rtype" != file ]; then
		reply_error "unknown resource type \"$rtype\" (this provider supports: file)"
		continue
	fi
	handle_write "$response" "$body" "$line"
done
