#!/usr/bin/env python3
"""A v0 resource provider for pier's flake tests (Python 3 stdlib only).

Types:
  value: inputs {value}            -> outputs {value}
  file:  inputs {name, contents}   -> writes the file, outputs {path}
It also serves destroyResourceRequest (declare operations = [ "destroy" ]).
With "--log FILE" every request is appended to FILE (relative to the
working directory pier gives it), so tests can see which requests a run
made.
"""
import json
import os
import sys


LOG = None


def log(kind, body):
    path = LOG
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"op": kind, "body": body}) + "\n")


def apply(rtype, inputs):
    if rtype == "value":
        unknown = set(inputs) - {"value"}
        if unknown:
            raise ValueError("value: unknown input(s) %s" % sorted(unknown))
        return {"value": inputs["value"]}
    if rtype == "file":
        unknown = set(inputs) - {"name", "contents"}
        if unknown:
            raise ValueError("file: unknown input(s) %s" % sorted(unknown))
        path = os.path.abspath(inputs["name"])
        with open(path, "w") as f:
            f.write(inputs["contents"])
        return {"path": path}
    raise ValueError("unsupported resource type %r (supported: file, value)" % rtype)


def handle(req):
    (kind, body), = req.items()
    log(kind, body)
    if kind == "createResourceRequest":
        return {"createResourceResponse": {"outputProperties": apply(body["type"], body["inputProperties"])}}
    if kind == "updateResourceRequest":
        return {"updateResourceResponse": {"outputProperties": apply(body["resource"]["type"], body["inputProperties"])}}
    if kind == "destroyResourceRequest":
        res = body["resource"]
        if res["type"] == "file":
            try:
                os.remove(os.path.abspath(res["inputProperties"]["name"]))
            except FileNotFoundError:
                pass
        return {"destroyResourceResponse": {}}
    raise ValueError("unsupported request %s" % kind)


def main():
    global LOG
    if sys.argv[1:2] == ["--log"]:
        LOG = sys.argv[2]
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            resp = handle(json.loads(line))
        except Exception as e:  # reported to pier, the process keeps serving
            resp = {"errorResponse": {"message": str(e)}}
        sys.stdout.write(json.dumps(resp) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
