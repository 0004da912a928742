#!/usr/bin/env python3
"""A v0 resource provider whose objects live outside pier's state, for
pier's tests of interrupted operations.

Type obj {name, delay?} -> {id}: create writes a new object file into the
directory $OBJECTS (one file per object, named NAME.N, N counting up), so
a test can count the copies of each name whatever pier recorded. The id is
the file's name.

- delay (seconds) is slept after the object is made, before the answer:
  a slow create, for kill -9 trials (bench/killtrials.sh).
- While a file block-NAME exists in $OBJECTS, a create of NAME writes its
  object, then writes created-NAME (the object's file name and the
  provider's pid, renamed into place whole) and blocks until it is killed: pier is
  killed while the provider is "still working" on an object that exists.
- While a file hold-NAME exists in $OBJECTS, a create of NAME writes its
  object and created-NAME likewise, then answers once hold-NAME is
  removed: a create a test keeps in flight as long as it needs.
- import {type, id} reads an existing object back; destroy removes it
  (one already gone is fine).
"""
import json
import os
import sys
import time

OBJECTS = os.environ.get("OBJECTS", "objects")


def create(props):
    name = props["name"]
    os.makedirs(OBJECTS, exist_ok=True)
    n = 0
    while True:
        path = os.path.join(OBJECTS, "%s.%d" % (name, n))
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            break
        except FileExistsError:
            n += 1
    with os.fdopen(fd, "w") as f:
        json.dump(props, f)
        f.flush()
        os.fsync(f.fileno())
    if props.get("delay"):
        time.sleep(float(props["delay"]))
    if os.path.exists(os.path.join(OBJECTS, "block-" + name)):
        # Renamed into place whole: a test that sees the file reads both
        # fields, however loaded the machine.
        created = os.path.join(OBJECTS, "created-" + name)
        with open(created + ".tmp", "w") as f:
            f.write("%s %d" % (os.path.basename(path), os.getpid()))
        os.rename(created + ".tmp", created)
        while True:
            time.sleep(3600)
    hold = os.path.join(OBJECTS, "hold-" + name)
    if os.path.exists(hold):
        with open(os.path.join(OBJECTS, "created-" + name), "w") as f:
            f.write("%s %d" % (os.path.basename(path), os.getpid()))
        # Bounded (about 5 minutes), so that a test that dies first
        # leaves no provider waiting.
        for _ in range(15000):
            if not os.path.exists(hold):
                break
            time.sleep(0.02)
    return {"id": os.path.basename(path)}


def handle(req):
    if "createResourceRequest" in req:
        r = req["createResourceRequest"]
        return {"createResourceResponse": {"outputProperties": create(r["inputProperties"])}}
    if "updateResourceRequest" in req:
        r = req["updateResourceRequest"]
        return {"updateResourceResponse": {"outputProperties": r["resource"]["outputProperties"]}}
    if "destroyResourceRequest" in req:
        r = req["destroyResourceRequest"]["resource"]
        try:
            os.remove(os.path.join(OBJECTS, r["outputProperties"]["id"]))
        except FileNotFoundError:
            pass
        return {"destroyResourceResponse": {}}
    if "importResourceRequest" in req:
        r = req["importResourceRequest"]
        with open(os.path.join(OBJECTS, os.path.basename(r["id"]))) as f:
            props = json.load(f)
        return {"importResourceResponse": {"inputProperties": props, "outputProperties": {"id": os.path.basename(r["id"])}}}
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
