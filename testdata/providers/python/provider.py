#!/usr/bin/env python3
"""A pier test provider in Python 3 (standard library only).

It speaks the NixOps4 resource protocol v0: one JSON request per line on
stdin, one JSON response per line on stdout, logs on stderr. It exits when
stdin closes.

Resource types:
  greeting  stateless. inputs: name (string, required), delay (seconds,
            optional). outputs: message, pid.
  memo      stateful (refuses isStateful=false). inputs: dir, key, value.
            Writes dir/key. outputs: path, length. Supports the optional
            operations destroy, read and import (id = the file's path).
  state     a state provider. inputs: path. Stores the state document as
            JSON in path; applies add/replace/remove patches.
  config    stateless. Reports which keys its configuration (JSON on the
            file descriptor named by PIER_PROVIDER_CONFIG_FD) has, never
            their values.
  crash     exits with status 4 without answering (for pool tests).

Every request kind is appended to the file named by
PIER_TEST_REQUEST_LOG, when set, so tests can prove what was sent.
"""
import json
import os
import sys
import time

EMPTY_STATE = {"_type": "nixopsState", "resources": {}, "deployments": {}}


class ProviderError(Exception):
    pass


def log(msg):
    print("python-provider: " + msg, file=sys.stderr, flush=True)


def load_config():
    fd = os.environ.get("PIER_PROVIDER_CONFIG_FD")
    if not fd:
        return None
    with os.fdopen(int(fd), "r") as f:
        return json.load(f)


CONFIG = load_config()


def check_inputs(rtype, inputs, required, optional=()):
    unknown = sorted(set(inputs) - set(required) - set(optional))
    if unknown:
        raise ProviderError("%s: unknown input %s" % (rtype, ", ".join(unknown)))
    missing = sorted(set(required) - set(inputs))
    if missing:
        raise ProviderError("%s: missing input %s" % (rtype, ", ".join(missing)))


def greeting(inputs):
    check_inputs("greeting", inputs, ["name"], ["delay"])
    if inputs.get("delay"):
        time.sleep(float(inputs["delay"]))
    return {"message": "hello, %s!" % inputs["name"], "pid": os.getpid()}


def memo_write(inputs):
    check_inputs("memo", inputs, ["dir", "key", "value"])
    path = os.path.join(inputs["dir"], inputs["key"])
    with open(path, "w") as f:
        f.write(inputs["value"])
    return {"path": path, "length": len(inputs["value"])}


def config_outputs(inputs):
    check_inputs("config", inputs, [])
    if CONFIG is None:
        return {"configured": False, "keys": []}
    return {"configured": True, "keys": sorted(CONFIG)}


def pointer(path):
    if path == "":
        return []
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def apply_patch(doc, patch):
    for op in patch:
        parts = pointer(op["path"])
        if not parts:
            if op["op"] in ("add", "replace"):
                doc = op["value"]
                continue
            raise ProviderError("state: cannot %s the whole document" % op["op"])
        parent = doc
        for p in parts[:-1]:
            parent = parent[int(p)] if isinstance(parent, list) else parent[p]
        last = parts[-1]
        if op["op"] in ("add", "replace"):
            if isinstance(parent, list):
                parent.insert(len(parent) if last == "-" else int(last), op["value"])
            else:
                parent[last] = op["value"]
        elif op["op"] == "remove":
            if isinstance(parent, list):
                del parent[int(last)]
            else:
                del parent[last]
        else:
            raise ProviderError("state: unsupported patch op %s" % op["op"])
    return doc


def state_read(resource):
    check_inputs("state", resource["inputProperties"], ["path"])
    try:
        with open(resource["inputProperties"]["path"]) as f:
            return json.load(f)
    except FileNotFoundError:
        return dict(EMPTY_STATE)


def handle(req):
    kind = next(iter(req))
    body = req[kind]
    if kind == "createResourceRequest":
        rtype, inputs = body["type"], body["inputProperties"]
        if rtype == "greeting":
            return {"createResourceResponse": {"outputProperties": greeting(inputs)}}
        if rtype == "memo":
            if not body["isStateful"]:
                raise ProviderError("memo resources must be stateful")
            return {"createResourceResponse": {"outputProperties": memo_write(inputs)}}
        if rtype == "config":
            return {"createResourceResponse": {"outputProperties": config_outputs(inputs)}}
        if rtype == "state":
            check_inputs("state", inputs, ["path"])
            return {"createResourceResponse": {"outputProperties": {}}}
        if rtype == "crash":
            log("crashing on purpose")
            os._exit(4)
        raise ProviderError("unknown resource type %r" % rtype)
    if kind == "updateResourceRequest":
        rtype, inputs = body["resource"]["type"], body["inputProperties"]
        if rtype == "memo":
            return {"updateResourceResponse": {"outputProperties": memo_write(inputs)}}
        if rtype == "greeting":
            return {"updateResourceResponse": {"outputProperties": greeting(inputs)}}
        raise ProviderError("resource type %r cannot be updated" % rtype)
    if kind == "destroyResourceRequest":
        res = body["resource"]
        if res["type"] != "memo":
            raise ProviderError("resource type %r cannot be destroyed" % res["type"])
        path = os.path.join(res["inputProperties"]["dir"], res["inputProperties"]["key"])
        if os.path.exists(path):
            os.remove(path)
        return {"destroyResourceResponse": {}}
    if kind == "readResourceRequest":
        res = body["resource"]
        if res["type"] != "memo":
            raise ProviderError("resource type %r cannot be read" % res["type"])
        path = os.path.join(res["inputProperties"]["dir"], res["inputProperties"]["key"])
        if not os.path.exists(path):
            return {"readResourceResponse": {"exists": False}}
        with open(path) as f:
            value = f.read()
        return {"readResourceResponse": {"exists": True, "outputProperties": {"path": path, "length": len(value)}}}
    if kind == "importResourceRequest":
        if body["type"] != "memo":
            raise ProviderError("resource type %r cannot be imported" % body["type"])
        path = body["id"]
        with open(path) as f:
            value = f.read()
        inputs = {"dir": os.path.dirname(path), "key": os.path.basename(path), "value": value}
        return {"importResourceResponse": {"inputProperties": inputs, "outputProperties": {"path": path, "length": len(value)}}}
    if kind == "stateResourceReadRequest":
        if body["resource"]["type"] != "state":
            raise ProviderError("resource type %r is not a state provider" % body["resource"]["type"])
        return {"stateResourceReadResponse": {"state": state_read(body["resource"])}}
    if kind == "stateResourceEvent":
        res = body["resource"]
        if res["type"] != "state":
            raise ProviderError("resource type %r is not a state provider" % res["type"])
        doc = apply_patch(state_read(res), body["patch"])
        path = res["inputProperties"]["path"]
        with open(path + ".tmp", "w") as f:
            json.dump(doc, f)
        os.replace(path + ".tmp", path)
        log("recorded event %s from %s" % (body["event"], body["nixopsVersion"]))
        return {"stateResourceEventResponse": {}}
    raise ProviderError("unsupported request %s" % kind)


def main():
    request_log = os.environ.get("PIER_TEST_REQUEST_LOG")
    for line in sys.stdin:
        req = json.loads(line)
        kind = next(iter(req))
        if request_log:
            with open(request_log, "a") as f:
                f.write(kind + "\n")
        log("handling %s" % kind)
        try:
            resp = handle(req)
        except ProviderError as e:
            resp = {"errorResponse": {"message": str(e)}}
        except (KeyError, OSError, ValueError) as e:
            resp = {"errorResponse": {"message": "%s: %s" % (type(e).__name__, e)}}
        sys.stdout.write(json.dumps(resp) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
