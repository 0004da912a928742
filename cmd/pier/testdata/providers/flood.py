#!/usr/bin/env python3
"""A v0 resource provider whose answers are as large as asked, written
in 1 MiB pieces so that the provider itself holds only one.

Types:
  flood        {size}  -> createResourceResponse {data: size bytes}
  flood_state  {size}  a state handler whose state read answers with a
                       document of about size bytes
"""
import json
import sys

CHUNK = "x" * (1 << 20)


def stream(prefix, size, suffix):
    out = sys.stdout
    out.write(prefix)
    left = size
    while left > 0:
        n = min(left, len(CHUNK))
        out.write(CHUNK[:n])
        left -= n
    out.write(suffix + "\n")
    out.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    req = json.loads(line)
    if "createResourceRequest" in req:
        r = req["createResourceRequest"]
        if r["type"] == "flood":
            stream('{"createResourceResponse":{"outputProperties":{"data":"', int(r["inputProperties"]["size"]), '"}}}')
            continue
        resp = {"createResourceResponse": {"outputProperties": {}}}
    elif "stateResourceReadRequest" in req:
        size = int(req["stateResourceReadRequest"]["resource"]["inputProperties"]["size"])
        stream('{"stateResourceReadResponse":{"state":{"_type":"nixopsState","resources":{},"deployments":{},"pad":"', size, '"}}}')
        continue
    elif "stateResourceEvent" in req:
        resp = {"stateResourceEventResponse": {}}
    else:
        resp = {"errorResponse": {"message": "unsupported request"}}
    sys.stdout.write(json.dumps(resp) + "\n")
    sys.stdout.flush()
