"""Open deployments over pier rpcapi from a server and a client that run
in directories of their own, and plan and apply them.

usage: paths.py PIER PROTO_DIR OUT_DIR SERVER_DIR NAME=SOURCE...

SOURCE is flake:REF or dir:PATH[,VARFILE]. pier rpcapi starts in
SERVER_DIR. For each deployment it prints one JSON line with what the plan
and the apply of that plan counted.
"""
import json
import sys

pier, proto_dir, out, server_dir = sys.argv[1:5]

import pierrpc  # noqa: E402

pb, rpc = pierrpc.stubs(proto_dir, out)
proc, channel = pierrpc.start(pier, server_dir)
rpc.SetupStub(channel).Handshake(pb.Handshake.Request())
deployments = rpc.DeploymentsStub(channel)

for arg in sys.argv[5:]:
    name, source = arg.split("=", 1)
    kind, ref = source.split(":", 1)
    if kind == "flake":
        req = pb.OpenDeployment.Request(flake=ref)
    else:
        path, _, var_file = ref.partition(",")
        req = pb.OpenDeployment.Request(dir=path, var_files=[var_file] if var_file else [])
    opened = deployments.OpenDeployment(req)
    if opened.deployment_handle == 0:
        print(json.dumps({"name": name, "error": [d.summary + ": " + d.detail for d in opened.diagnostics]}), flush=True)
        continue
    dh = opened.deployment_handle
    complete, diags = None, []
    for ev in deployments.PlanDeployment(pb.PlanDeployment.Request(deployment_handle=dh)):
        kind = ev.WhichOneof("event")
        if kind == "complete":
            complete = ev.complete
        elif kind == "diagnostic":
            diags.append(ev.diagnostic.summary + ": " + ev.diagnostic.detail)
    if complete is None or complete.plan_handle == 0:
        print(json.dumps({"name": name, "error": diags}), flush=True)
        continue
    applied = None
    for ev in deployments.ApplyPlan(pb.ApplyPlan.Request(plan_handle=complete.plan_handle)):
        if ev.WhichOneof("event") == "complete":
            applied = ev.complete
    print(json.dumps({"name": name, "create": complete.summary.create, "no_op": complete.summary.no_op,
                      "created": applied.created if applied else -1}), flush=True)
    deployments.CloseDeployment(pb.CloseDeployment.Request(deployment_handle=dh))

# The server exits when the client closes.
channel.close()
proc.wait(timeout=120)
