#!/usr/bin/env python3
"""A v0 resource provider for pier's end-to-end tests.

Every operation it performs is appended to a journal file (JOURNAL env var,
one JSON object per line), so tests can count how often each resource was
created, updated or destroyed, even across a killed pier.

Types:
  echo   {value, sleep?, gate?, started?}
                           -> {value, serial}   outputs echo the input; sleep
                                               seconds first if given; wait
                                               first until the file gate
                                               exists, if given; append the
                                               value to the file started as
                                               the request arrives, if given
                                               (for tests that must stop
                                               pier while a create is in
                                               the provider's hands)
  fail   {message}         -> errorResponse    always fails
It implements the optional destroy operation. While a file named
fail-destroy exists in its working directory, every destroy fails; while
one named hold-destroy exists, every destroy waits (for tests that watch
a destroy under way).
"""
import json
import os
import sys
import time

JOURNAL = os.environ.get("JOURNAL", "journal.jsonl")
serial = 0


def journal(op, rtype, props):
    with open(JOURNAL, "a") as f:
        f.write(json.dumps({"op": op, "type": rtype, "inputs": props, "pid": os.getpid()}) + "\n")
        f.flush()
        os.fsync(f.fileno())


def check(rtype, props):
    allowed = {"echo": {"value", "sleep", "gate", "started"}, "fail": {"message"}}
    if rtype not in allowed:
        raise ValueError("unknown resource type %r (known: echo, fail)" % rtype)
    extra = set(props) - allowed[rtype]
    if extra:
        raise ValueError("unknown input %s for type %s" % (", ".join(sorted(extra)), rtype))
    if rtype == "fail":
        raise ValueError(props.get("message", "this resource always fails"))


def apply(rtype, props):
    global serial
    check(rtype, props)
    if props.get("started"):
        with open(props["started"], "a") as f:
            f.write("%s\n" % props.get("value"))
    if props.get("gate"):
        # Bounded, so that a provider whose pier was killed without it
        # does not wait for ever.
        deadline = time.monotonic() + 300
        while not os.path.exists(props["gate"]) and time.monotonic() < deadline:
            time.sleep(0.02)
    if props.get("sleep"):
        time.sleep(float(props["sleep"]))
    serial += 1
    return {"value": props.get("value"), "serial": serial}


def handle(req):
    if "createResourceRequest" in req:
        r = req["createResourceRequest"]
        out = apply(r["type"], r["inputProperties"])
        journal("create", r["type"], r["inputProperties"])
        return {"createResourceResponse": {"outputProperties": out}}
    if "updateResourceRequest" in req:
        r = req["updateResourceRequest"]
        out = apply(r["resource"]["type"], r["inputProperties"])
        journal("update", r["resource"]["type"], r["inputProperties"])
        return {"updateResourceResponse": {"outputProperties": out}}
    if "destroyResourceRequest" in req:
        r = req["destroyResourceRequest"]["resource"]
        if os.path.exists("fail-destroy"):
            raise ValueError("destroy refused: fail-destroy exists")
        deadline = time.monotonic() + 300
        while os.path.exists("hold-destroy") and time.monotonic() < deadline:
            time.sleep(0.02)
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
