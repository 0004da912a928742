"""Plan and apply a deployment over pier rpcapi and list what its events
say about each resource: one JSON line of [kind, address, deposed_key].

usage: deposed.py PIER PROTO_DIR OUT_DIR DEPLOYMENT_DIR
"""
import json
import sys

pier, proto_dir, out, deployment = sys.argv[1:5]

import pierrpc  # noqa: E402

pb, rpc = pierrpc.stubs(proto_dir, out)
proc, channel = pierrpc.start(pier, out)
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
