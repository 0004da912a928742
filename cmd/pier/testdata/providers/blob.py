#!/usr/bin/env python3
"""A v0 resource provider whose outputs are as large as asked, for pier's
state size tests.

Type:
  blob  {size, fill}  ->  {data}  data is fill (one character) repeated
                                  size times
It implements the optional destroy operation.
"""
import json
import sys


def blob(props):
    extra = set(props) - {"size", "fill"}
    if extra:
        raise ValueError("unknown input %s" % ", ".join(sorted(extra)))
    return {"data": str(props["fill"])[:1] * int(props["size"])}


def handle(req):
    if "createResourceRequest" in req:
        return {"createResourceResponse": {"outputProperties": blob(req["createResourceRequest"]["inputProperties"])}}
    if "updateResourceRequest" in req:
        return {"updateResourceResponse": {"outputProperties": blob(req["updateResourceRequest"]["inputProperties"])}}
    if "destroyResourceRequest" in req:
        return {"destroyResourceResponse": {}}
    raise ValueError("unsupported request %s" % ", ".join(req))


for line in sys.stdin:
    if not line.strip():
        continue
    try:
        resp = handle(json.loads(line))
    except Exception as e:  # report, keep serving
        resp = {"errorResponse": {"message": str(e)}}
    sys.stdout.write(json.dumps(resp) + "\n")
    sys.stdout.flush()
