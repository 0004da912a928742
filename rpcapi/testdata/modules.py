"""Plan and apply a deployment with a for_each module over pier rpcapi,
using module addresses as a client would: as they come in PlannedChange,
AppliedChange and ResourceStatus, and as targets and replace.

usage: modules.py PIER PROTO_DIR OUT_DIR DEPLOYMENT_DIR

It prints one JSON object: for each step, what the server said, for the
Go test to compare.
"""
import json
import sys

pier, proto_dir, out, deployment = sys.argv[1:5]

import pierrpc  # noqa: E402

pb, rpc = pierrpc.stubs(proto_dir, out)
proc, channel = pierrpc.start(pier, out)
rpc.SetupStub(channel).Handshake(pb.Handshake.Request())
deployments = rpc.DeploymentsStub(channel)

dh = deployments.OpenDeployment(pb.OpenDeployment.Request(dir=deployment)).deployment_handle
report = {}
comps = deployments.ListComponents(pb.ListComponents.Request(deployment_handle=dh))
report["components"] = sorted(r.address for r in comps.resources)


def plan(**kw):
    """Plan; return the changes as "ACTION address (type)", the plan
    handle (0 if planning failed) and the diagnostics."""
    changes, handle, diags = [], 0, []
    for ev in deployments.PlanDeployment(pb.PlanDeployment.Request(deployment_handle=dh, **kw)):
        kind = ev.WhichOneof("event")
        if kind == "planned_change":
            pc = ev.planned_change
            changes.append("%s %s (%s)" % (pb.Action.Name(pc.action), pc.address, pc.resource_type))
        elif kind == "diagnostic":
            diags.append({"summary": ev.diagnostic.summary, "detail": ev.diagnostic.detail})
        elif kind == "complete":
            handle = ev.complete.plan_handle
    return sorted(changes), handle, diags


def apply(handle):
    """Apply; return the applied changes and the resources' final
    statuses, each as "ACTION address" / "STATUS address"."""
    applied, statuses, diags = [], {}, []
    for ev in deployments.ApplyPlan(pb.ApplyPlan.Request(plan_handle=handle)):
        kind = ev.WhichOneof("event")
        if kind == "applied_change":
            ac = ev.applied_change
            applied.append("%s %s" % (pb.Action.Name(ac.action), ac.address))
        elif kind == "progress" and ev.progress.WhichOneof("event") == "resource_status":
            rs = ev.progress.resource_status
            statuses[rs.address] = pb.Progress.ResourceStatus.Status.Name(rs.status)
        elif kind == "diagnostic":
            diags.append(ev.diagnostic.summary)
    return {"applied": sorted(applied), "statuses": ["%s %s" % (s, a) for a, s in sorted(statuses.items())],
            "diagnostics": diags}


def step(name, **kw):
    changes, handle, diags = plan(**kw)
    report[name] = {"planned": changes, "diagnostics": diags}
    if handle:
        report[name].update(apply(handle))


# Only the blog's instance (and the state handler it needs).
step("target_blog", targets=['module.site["blog"]'])
# The rest.
step("everything")
# One resource in one instance, replaced though unchanged.
step("replace_shop_page", replace=['module.site["shop"].page'])
# The inspector reads module instances' outputs and recorded resources.
inspector = rpc.InspectorStub(channel)
ih = inspector.OpenInspector(pb.OpenInspector.Request(deployment_handle=dh)).inspector_handle
report["inspected"] = {}
for expr in ['module.site["blog"].resource.page.outputs.value', 'module.site["shop"].resource.page.outputs.value',
             'module.site["blog"].url']:
    r = inspector.InspectExpression(pb.InspectExpression.Request(inspector_handle=ih, expression=expr))
    report["inspected"][expr] = json.loads(r.value_json) if r.value_json else [d.summary for d in r.diagnostics]
inspector.CloseInspector(pb.CloseInspector.Request(inspector_handle=ih))
# An instance that does not exist is refused, by its address.
changes, handle, diags = plan(targets=['module.site["news"]'])
report["target_missing"] = {"planned": changes, "handle": handle, "diagnostics": diags}

print(json.dumps(report), flush=True)
channel.close()
proc.wait(timeout=120)
