"""Ask pier rpcapi which providers ship inside pier, then plan and apply a
deployment that keeps its state in PostgreSQL (pg_state) over RPC.

usage: builtins.py PIER PROTO_DIR OUT_DIR DEPLOYMENT_DIR

It prints one JSON object: the built-in providers as GetBuiltInProviders
lists them, and what the plan and the apply of that plan counted.
"""
import json
import sys

pier, proto_dir, out, deployment = sys.argv[1:5]

import pierrpc  # noqa: E402

pb, rpc = pierrpc.stubs(proto_dir, out)
proc, channel = pierrpc.start(pier, out)
rpc.SetupStub(channel).Handshake(pb.Handshake.Request())
deps = rpc.DependenciesStub(channel)
deployments = rpc.DeploymentsStub(channel)

result = {"builtins": {}}
for p in deps.GetBuiltInProviders(pb.GetBuiltInProviders.Request()).providers:
    result["builtins"][p.name] = {"resource_types": list(p.resource_types), "state_types": list(p.state_types),
                                  "operations": list(p.operations)}


def diagnostics(ds):
    return [d.summary + ": " + d.detail for d in ds]


opened = deployments.OpenDeployment(pb.OpenDeployment.Request(dir=deployment))
if opened.deployment_handle == 0:
    result["error"] = diagnostics(opened.diagnostics)
else:
    complete, diags = None, []
    for ev in deployments.PlanDeployment(pb.PlanDeployment.Request(deployment_handle=opened.deployment_handle)):
        kind = ev.WhichOneof("event")
        if kind == "complete":
            complete = ev.complete
        elif kind == "diagnostic":
            diags.append(ev.diagnostic.summary + ": " + ev.diagnostic.detail)
    result["plan_diagnostics"] = diags
    if complete is not None and complete.plan_handle != 0:
        result["create"] = complete.summary.create
        for ev in deployments.ApplyPlan(pb.ApplyPlan.Request(plan_handle=complete.plan_handle)):
            kind = ev.WhichOneof("event")
            if kind == "complete":
                result["created"] = ev.complete.created
            elif kind == "diagnostic":
                result.setdefault("apply_diagnostics", []).append(ev.diagnostic.summary + ": " + ev.diagnostic.detail)
    deployments.CloseDeployment(pb.CloseDeployment.Request(deployment_handle=opened.deployment_handle))
print(json.dumps(result), flush=True)

# The server exits when the client closes.
channel.close()
proc.wait(timeout=120)
