"""Plan and apply a deployment over pier rpcapi and list what its events
say about each resource: one JSON line of [kind, address, deposed_key].

usage: deposed.py PIER PROTO_DIR OUT_DIR DEPLOYMENT_DIR
"""
import json
import os
import subprocess
import sys

pier, proto_dir, out, deployment = sys.argv[1:5]

from grpc_tools import protoc  # noqa: E402

rc = protoc.main(["protoc", "-I" + proto_dir, "--python_out=" + out, "--grpc_python_out=" + out,
                  os.path.join(proto_dir, "pier1.proto")])
if rc != 0:
    sys.exit("protoc failed: %d" % rc)
sys.path.insert(0, out)

import grpc  # noqa: E402
import pier1_pb2 as pb  # noqa: E402
import pier1_pb2_grpc as rpc  # noqa: E402

env = dict(os.environ, PIER_RPCAPI_MAGIC_COOKIE="f3c2a1d4-pier-rpcapi-7b9e")
proc = subprocess.Popen([pier, "rpcapi"], cwd=out, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env)
sock = proc.stdout.readline().decode().strip().split("|")[3]
channel = grpc.insecure_channel("unix:" + sock)
grpc.channel_ready_future(channel).result(timeout=120)
rpc.SetupStub(channel).Handshake(pb.Handshake.Request())
deployments = rpc.DeploymentsStub(channel)

seen = []
dh = deployments.OpenDeployment(pb.OpenDeployment.Request(dir=deployment)).deployment_handle
complete = None
for ev in deployments.PlanDeployment(pb.PlanDeployment.Request(deployment_handle=dh)):
    kind = ev.WhichOneof("event")
    if kind == "planned_change":
        seen.append(["planned", ev.planned_change.address, ev.planned_change.deposed_key])
    elif kind == "complete":
        complete = ev.complete
for ev in deployments.ApplyPlan(pb.ApplyPlan.Request(plan_handle=complete.plan_handle)):
    kind = ev.WhichOneof("event")
    if kind == "applied_change":
        seen.append(["applied", ev.applied_change.address, ev.applied_change.deposed_key])
    elif kind == "progress" and ev.progress.WhichOneof("event") == "resource_status":
        rs = ev.progress.resource_status
        seen.append(["status", rs.address, rs.deposed_key])
print(json.dumps(seen), flush=True)
channel.close()
proc.wait(timeout=120)
