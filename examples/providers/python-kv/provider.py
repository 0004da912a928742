#!/usr/bin/env python3
"""A stateful key-value store kept in a directory: a pier resource provider.

Resource type "kv" stores one value in the file <dir>/<key>. It speaks the
v0 JSON-lines protocol on stdin/stdout (see docs/providers.md) and uses the
Python standard library only.
"""

import json
import os
import sys

KNOWN_INPUTS = {"dir", "key", "value"}


class ProviderError(Exception):
    """A failure reported to pier as an errorResponse."""


def log(msg):
    # stdout carries protocol frames only; everything else goes to stderr.
    print(f"python-kv: {msg}", file=sys.stderr, flush=True)


def check_type(rtype):
    if rtype != "kv":
        raise ProviderError(f'unknown resource type "{rtype}" (this provider supports: kv)')


def parse_inputs(props):
    if not isinstance(props, dict):
        raise ProviderError("inputProperties must be an object")
    unknown = sorted(set(props) - KNOWN_INPUTS)
    if unknown:
        raise ProviderError(f"unknown input field(s) {', '.join(unknown)} (known: dir, key, value)")
    for name in ("dir", "key", "value"):
        if not isinstance(props.get(name), str):
            raise ProviderError(f'input "{name}" must be a string')
    key = props["key"]
    if key in ("", ".", "..") or "/" in key:
        raise ProviderError(f'input "key" {key!r} must be a plain file name')
    return props["dir"], key, props["value"]


def write_value(dirname, key, value):
    os.makedirs(dirname, exist_ok=True)
    path = os.path.join(dirname, key)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(value)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def remove_value(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass  # already gone: destroy is idempotent


def create(req):
    check_type(req["type"])
    if not req.get("isStateful"):
        # Without state pier would forget the file and could never update or
        # destroy it, so refuse rather than pretend.
        raise ProviderError('resource type "kv" requires state: give the resource a state handler')
    dirname, key, value = parse_inputs(req["inputProperties"])
    path = write_value(dirname, key, value)
    log(f"created {path}")
    return {"createResourceResponse": {"outputProperties": {"path": path}}}


def update(req):
    old = req["resource"]
    check_type(old["type"])
    dirname, key, value = parse_inputs(req["inputProperties"])
    path = write_value(dirname, key, value)
    old_path = (old.get("outputProperties") or {}).get("path")
    if old_path and old_path != path:
        remove_value(old_path)
    log(f"updated {path}")
    return {"updateResourceResponse": {"outputProperties": {"path": path}}}


def destroy(req):
    res = req["resource"]
    check_type(res["type"])
    path = (res.get("outputProperties") or {}).get("path")
    if not path:
        dirname, key, _ = parse_inputs(res["inputProperties"])
        path = os.path.join(dirname, key)
    remove_value(path)
    log(f"destroyed {path}")
    return {"destroyResourceResponse": {}}


HANDLERS = {
    "createResourceRequest": create,
    "updateResourceRequest": update,
    "destroyResourceRequest": destroy,
}


def handle(line):
    try:
        msg = json.loads(line)
    except json.JSONDecodeError as e:
        raise ProviderError(f"request is not JSON: {e}") from e
    if not isinstance(msg, dict) or len(msg) != 1:
        raise ProviderError("request must be an object with exactly one key")
    (kind, req), = msg.items()
    handler = HANDLERS.get(kind)
    if handler is None:
        raise ProviderError(f'unsupported request "{kind}"')
    try:
        return handler(req)
    except (KeyError, TypeError) as e:
        raise ProviderError(f"malformed {kind}: {e!r}") from e


def main():
    # One request per line; stdin closing is the signal to exit.
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            resp = handle(line)
        except (ProviderError, OSError) as e:
            resp = {"errorResponse": {"message": str(e)}}
        sys.stdout.write(json.dumps(resp) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
