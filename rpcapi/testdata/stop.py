"""Setup.Stop in the middle of an apply, from a Python gRPC client.

usage: stop.py PIER PROTO_DIR OUT_DIR DEPLOYMENT_DIR GATE

The deployment's first resource waits for the file GATE. Once it is
applying, the client calls Setup.Stop, then creates GATE: the apply must
let that resource finish, start nothing more, and say it was interrupted;
a plan after Stop must not start. One JSON line says what happened.
"""
import json
import sys
import threading

pier, proto_dir, out, deployment, gate = sys.argv[1:6]

import pierrpc  # noqa: E402

pb, rpc = pierrpc.stubs(proto_dir, out)
proc, channel = pierrpc.start(pier, out)
setup = rpc.SetupStub(channel)
setup.Handshake(pb.Handshake.Request())
deployments = rpc.DeploymentsStub(channel)

dh = deployments.OpenDeployment(pb.OpenDeployment.Request(dir=deployment)).deployment_handle
complete = None
for ev in deployments.PlanDeployment(pb.PlanDeployment.Request(deployment_handle=dh)):
    if ev.WhichOneof("event") == "complete":
        complete = ev.complete
if complete is None or complete.plan_handle == 0:
    sys.exit("plan failed")

result = {}
stopped = threading.Event()
for ev in deployments.ApplyPlan(pb.ApplyPlan.Request(plan_handle=complete.plan_handle)):
    kind = ev.WhichOneof("event")
    rs = ev.progress.resource_status if kind == "progress" and ev.progress.WhichOneof("event") == "resource_status" else None
    if rs is not None and rs.status == pb.Progress.ResourceStatus.APPLYING and not stopped.is_set():
        setup.Stop(pb.Stop.Request())
        stopped.set()
        result["stopped_while"] = rs.address
        open(gate, "w").close()
    if kind == "complete":
        c = ev.complete
        result.update(created=c.created, interrupted=c.interrupted, skipped=list(c.skipped))

# After Stop, a plan does not start.
diags, handle = [], None
for ev in deployments.PlanDeployment(pb.PlanDeployment.Request(deployment_handle=dh)):
    kind = ev.WhichOneof("event")
    if kind == "complete":
        handle = ev.complete.plan_handle
    elif kind == "diagnostic":
        diags.append(ev.diagnostic.summary)
result.update(plan_after_stop=handle, plan_after_stop_diagnostics=diags)
print(json.dumps(result), flush=True)
channel.close()
proc.wait(timeout=120)
