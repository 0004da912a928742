#!/usr/bin/env python3
"""A provider that breaks one rule of the protocol guide, chosen by argv[1].

Without a fault (argv[1] == "none") it is a correct provider of:
  thing {name}   -> {id}  requires state; declares destroy
  store {file}   -> {}    a state provider keeping its document in a file
The conformance tests run it once per fault and expect exactly the checks
named in the test table to fail.
"""

import json
import os
import sys
import time

FAULT = sys.argv[1] if len(sys.argv) > 1 else "none"
INPUTS = {"thing": {"name"}, "store": {"file"}}
INITIAL = {"_type": "nixopsState", "resources": {}, "deployments": {}}


class Refused(Exception):
    pass


def out(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def check(rtype, props):
    if rtype not in INPUTS:
        if FAULT == "crash-unknown-type":
            raise SystemExit(f"no such type {rtype}")  # dies without answering
        raise Refused(f'unknown resource type "{rtype}"')
    unknown = set(props) - INPUTS[rtype]
    if unknown and FAULT != "ignore-unknown-field":
        raise Refused(f"unknown input field(s) {sorted(unknown)}")


def read_store(res):
    path = res["inputProperties"]["file"]
    if not os.path.exists(path):
        return dict(INITIAL)
    with open(path) as f:
        return json.load(f)


def apply_patch(doc, patch):
    # Only "add" and "remove" of an object member: enough for the checker.
    for op in patch:
        parts = [p.replace("~1", "/").replace("~0", "~") for p in op["path"].split("/")[1:]]
        node = doc
        for p in parts[:-1]:
            node = node[p]
        if op["op"] == "add":
            node[parts[-1]] = op["value"]
        elif op["op"] == "remove":
            del node[parts[-1]]
        else:
            raise Refused(f"unsupported patch op {op['op']}")
    return doc


def handle(kind, body):
    if kind == "createResourceRequest":
        check(body["type"], body["inputProperties"])
        if body["type"] == "thing" and not body["isStateful"] and FAULT != "pretend-stateful":
            raise Refused('type "thing" requires state')
        if FAULT == "hang-create" and body["inputProperties"] == {"name": "a"}:
            time.sleep(3600)  # never answers in time
        if FAULT == "invalid-create":
            return {"createResourceResponse": {"outputProperties": {"id": "1"}, "extra": True}}
        outputs = {"id": "thing-1"} if body["type"] == "thing" else {}
        return {"createResourceResponse": {"outputProperties": outputs}}
    if kind == "updateResourceRequest":
        check(body["resource"]["type"], body["inputProperties"])
        if FAULT == "wrong-kind-update":
            return {"createResourceResponse": {"outputProperties": {}}}
        return {"updateResourceResponse": {"outputProperties": body["resource"].get("outputProperties", {})}}
    if kind == "destroyResourceRequest":
        if FAULT == "no-destroy":
            raise Refused("destroy is not implemented")
        return {"destroyResourceResponse": {}}
    if kind == "readResourceRequest":
        return {"readResourceResponse": {"exists": FAULT != "read-gone", "outputProperties": {}}}
    if kind == "stateResourceReadRequest":
        return {"stateResourceReadResponse": {"state": read_store(body["resource"])}}
    if kind == "stateResourceEvent":
        doc = read_store(body["resource"])
        if FAULT != "forget-event":
            doc = apply_patch(doc, body["patch"])
        with open(body["resource"]["inputProperties"]["file"], "w") as f:
            json.dump(doc, f)
        return {"stateResourceEventResponse": {}}
    raise Refused(f"unsupported request {kind}")


def main():
    answered = 0
    for line in sys.stdin:
        (kind, body), = json.loads(line).items()
        if FAULT == "stdout-log" and kind == "updateResourceRequest":
            print("updating")  # a log line on stdout: the fault
            sys.stdout.flush()
        try:
            resp = handle(kind, body)
        except Refused as e:
            resp = {"errorResponse": {"message": str(e)}}
        out(resp)
        answered += 1
        if FAULT == "exit-after-one":
            sys.exit(0)
    if FAULT == "extra-after-last":
        out({"errorResponse": {"message": "goodbye"}})  # nobody asked
    if FAULT == "linger":
        time.sleep(60)
    if FAULT == "exit-nonzero":
        sys.exit(3)


if __name__ == "__main__":
    main()
