#!/usr/bin/env python3
"""A v0 resource provider that implements the optional preview operation,
for pier's end-to-end tests of replacements learned while planning.

Type:
  named {name, size} -> {name, size, serial}   changing name needs a new
                                               object; size changes in place

Preview says replace (reason "name") when the name changes; pier then
destroys and creates. Declared without preview, its update replaces by
itself (journaled as "update-replace"), as a provider that cannot tell the
plan does. Every operation is appended to the journal (JOURNAL
env var), in the format of journal.py; a replacing update journals
"update-replace". A name of "fail-preview" makes preview fail.
It implements destroy and preview.
"""
import json
import os
import sys

JOURNAL = os.environ.get("JOURNAL", "journal.jsonl")
serial = 0


def journal(op, rtype, props):
    with open(JOURNAL, "a") as f:
        f.write(json.dumps({"op": op, "type": rtype, "inputs": props, "pid": os.getpid()}) + "\n")
        f.flush()
        os.fsync(f.fileno())


def check(rtype, props):
    if rtype != "named":
        raise ValueError("unknown resource type %r (known: named)" % rtype)
    if not isinstance(props.get("size", 0), int):
        raise ValueError("size must be a number")
    extra = set(props) - {"name", "size"}
    if extra:
        raise ValueError("unknown input %s for type named" % ", ".join(sorted(extra)))


def outputs(props):
    global serial
    serial += 1
    return {"name": props.get("name"), "size": props.get("size"), "serial": serial}


def handle(req):
    if "createResourceRequest" in req:
        r = req["createResourceRequest"]
        check(r["type"], r["inputProperties"])
        journal("create", r["type"], r["inputProperties"])
        return {"createResourceResponse": {"outputProperties": outputs(r["inputProperties"])}}
    if "previewResourceRequest" in req:
        r = req["previewResourceRequest"]
        new = r["inputProperties"]
        check(r["type"], new)
        if "resource" not in r:  # a create
            journal("preview-create", r["type"], new)
            return {"previewResourceResponse": {"replace": False, "plannedOutputProperties": {"name": new.get("name"), "size": new.get("size")}, "unknownOutputs": [["serial"]]}}
        old = r["resource"]["inputProperties"]
        journal("preview", r["type"], new)
        if new.get("name") == "fail-preview":
            raise ValueError("cannot preview a change to name fail-preview")
        if old.get("name") != new.get("name"):
            return {"previewResourceResponse": {"replace": True, "replaceReasons": ["name"]}}
        planned = dict(r["resource"].get("outputProperties") or {}, size=new.get("size"))
        return {"previewResourceResponse": {"replace": False, "plannedOutputProperties": planned}}
    if "updateResourceRequest" in req:
        r = req["updateResourceRequest"]
        old, new = r["resource"]["inputProperties"], r["inputProperties"]
        check(r["resource"]["type"], new)
        op = "update-replace" if old.get("name") != new.get("name") else "update"
        journal(op, r["resource"]["type"], new)
        return {"updateResourceResponse": {"outputProperties": outputs(new)}}
    if "destroyResourceRequest" in req:
        r = req["destroyResourceRequest"]["resource"]
        journal("destroy", r["type"], r["inputProperties"])
        return {"destroyResourceResponse": {}}
    raise ValueError("unsupported request %s" % ", ".join(req))


for line in sys.stdin:
    if not line.strip():
        continue
    try:
        resp = handle(json.loads(line))
    except Exception as e:  # every failure is an errorResponse, never a crash
        resp = {"errorResponse": {"message": str(e)}}
    sys.stdout.write(json.dumps(resp) + "\n")
    sys.stdout.flush()
