"""Drive pier rpcapi as a client nobody at pier wrote would: with Debian's
python3-grpcio, from pier1.proto compiled by grpc_tools at run time.

usage: scenario.py PIER PROTO_DIR DEPLOYMENT_DIR OUT_DIR [kill]

With "kill" it stops in the middle of an apply, prints {"step":
"applying"} and waits to be killed: the Go test then checks that no pier
or provider process outlives it.

It prints one JSON line per step to stdout, so the Go test driving it can
check each one, and exits non-zero on the first surprise.
"""
import json
import os
import subprocess
import sys
import time

pier, proto_dir, deployment, out = sys.argv[1:5]
kill_mode = sys.argv[5:] == ["kill"]

from grpc_tools import protoc  # noqa: E402

rc = protoc.main(["protoc", "-I" + proto_dir, "--python_out=" + out, "--grpc_python_out=" + out,
                  os.path.join(proto_dir, "pier1.proto")])
if rc != 0:
    sys.exit("protoc failed: %d" % rc)
sys.path.insert(0, out)

import grpc  # noqa: E402
import pier1_pb2 as pb  # noqa: E402
import pier1_pb2_grpc as rpc  # noqa: E402


def step(name, **kw):
    kw["step"] = name
    print(json.dumps(kw), flush=True)


def check(cond, what):
    if not cond:
        step("failed", what=what)
        sys.exit(1)


env = dict(os.environ, PIER_RPCAPI_MAGIC_COOKIE="f3c2a1d4-pier-rpcapi-7b9e")
proc = subprocess.Popen([pier, "rpcapi"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env)
step("started", pid=proc.pid)

# 1. The go-plugin handshake line: CORE|APP|NETWORK|ADDR|PROTOCOL[|CERT].
line = proc.stdout.readline().decode().strip()
parts = line.split("|")
check(len(parts) >= 5 and parts[0] == "1" and parts[1] == "1" and parts[2] == "unix" and parts[4] == "grpc",
      "handshake line " + line)
sock = parts[3]
mode = os.stat(os.path.dirname(sock)).st_mode & 0o777
step("handshake_line", network=parts[2], protocol=parts[4], socket_dir_mode=oct(mode))

# 2. Connect over the socket.
channel = grpc.insecure_channel("unix:" + sock)
grpc.channel_ready_future(channel).result(timeout=60)
setup = rpc.SetupStub(channel)
deps = rpc.DependenciesStub(channel)
deployments = rpc.DeploymentsStub(channel)
inspector = rpc.InspectorStub(channel)

# A call before the handshake is refused.
try:
    deps.GetBuiltInProviders(pb.GetBuiltInProviders.Request())
    check(False, "GetBuiltInProviders before the handshake succeeded")
except grpc.RpcError as e:
    check(e.code() == grpc.StatusCode.FAILED_PRECONDITION, "before handshake: %s" % e.code())
    step("refused_before_handshake", code=e.code().name)

# 3. Handshake.
hs = setup.Handshake(pb.Handshake.Request(capabilities=pb.ClientCapabilities(provider_logs=False)))
step("handshake", server_version=hs.server_version, lock_verification=hs.capabilities.lock_verification,
     terraform_provider_schemas=hs.capabilities.terraform_provider_schemas)
try:
    setup.Handshake(pb.Handshake.Request())
    check(False, "second handshake succeeded")
except grpc.RpcError as e:
    check(e.code() == grpc.StatusCode.FAILED_PRECONDITION, "second handshake: %s" % e.code())

# A bad deployment: diagnostics, zero handle.
bad = deployments.OpenDeployment(pb.OpenDeployment.Request(dir=os.path.join(out, "no-such-deployment")))
check(bad.deployment_handle == 0 and len(bad.diagnostics) > 0, "bad deployment opened")
step("bad_deployment", handle=bad.deployment_handle, diagnostic=bad.diagnostics[0].summary)

# 4. Open the deployment.
opened = deployments.OpenDeployment(pb.OpenDeployment.Request(dir=deployment))
check(opened.deployment_handle != 0, "open: %s" % [d.summary for d in opened.diagnostics])
dh = opened.deployment_handle
step("opened", handle=dh)

comps = deployments.ListComponents(pb.ListComponents.Request(deployment_handle=dh))
step("components", resources=[r.address for r in comps.resources], providers=[p.name for p in comps.providers],
     outputs=list(comps.outputs))

# 5. Validate, then stream a plan.
val = deployments.ValidateDeployment(pb.ValidateDeployment.Request(deployment_handle=dh))
check(not any(d.severity == pb.Diagnostic.ERROR for d in val.diagnostics), "validate: %s" % val.diagnostics)
step("validated", diagnostics=len(val.diagnostics))


with_after = []


def plan(destroy=False):
    changes, complete, diags = [], None, []
    for ev in deployments.PlanDeployment(pb.PlanDeployment.Request(deployment_handle=dh, destroy=destroy)):
        kind = ev.WhichOneof("event")
        if kind == "planned_change":
            pc = ev.planned_change
            changes.append((pc.address, pb.Action.Name(pc.action)))
            # A create's after is its planned inputs as a JSON object.
            if pc.action == pb.CREATE:
                after = json.loads(pc.after_json)
                check(isinstance(after, dict) and not pc.before_json, "%s: after %r, before %r" % (pc.address, pc.after_json, pc.before_json))
                with_after.append(pc.address)
        elif kind == "diagnostic":
            diags.append(ev.diagnostic.summary)
        elif kind == "complete":
            complete = ev.complete
    check(complete is not None and complete.plan_handle != 0, "plan: %s" % diags)
    return changes, complete


changes, complete = plan()
if kill_mode:
    for ev in deployments.ApplyPlan(pb.ApplyPlan.Request(plan_handle=complete.plan_handle)):
        rs = ev.progress.resource_status if ev.WhichOneof("event") == "progress" else None
        if rs is not None and rs.status == pb.Progress.ResourceStatus.APPLYING:
            step("applying", address=rs.address, server_pid=proc.pid)
            time.sleep(3600)
    check(False, "apply ended before it was killed")
step("planned", changes=sorted(changes), create=complete.summary.create, plan_handle=complete.plan_handle,
     with_after=len(with_after))

# The deployment cannot close while its plan is open.
try:
    deployments.CloseDeployment(pb.CloseDeployment.Request(deployment_handle=dh))
    check(False, "closed a deployment with an open plan")
except grpc.RpcError as e:
    check(e.code() == grpc.StatusCode.FAILED_PRECONDITION and "plan handle" in e.details(), "close: %s" % e.details())
    step("close_refused", detail=e.details())


# 6. Stream the apply.
def apply(handle):
    applied, done, diags, statuses = [], None, [], 0
    for ev in deployments.ApplyPlan(pb.ApplyPlan.Request(plan_handle=handle)):
        kind = ev.WhichOneof("event")
        if kind == "applied_change":
            applied.append(ev.applied_change.address)
        elif kind == "progress":
            statuses += 1
        elif kind == "diagnostic":
            diags.append(ev.diagnostic.summary)
        elif kind == "complete":
            done = ev.complete
    check(done is not None and not diags, "apply: %s" % diags)
    return applied, done, statuses


applied, done, statuses = apply(complete.plan_handle)
outs = {o.name: (json.loads(o.value_json) if o.value_json else None) for o in done.outputs}
step("applied", applied=sorted(applied), created=done.created, progress_events=statuses, outputs=sorted(outs))

# 7. Inspect an output.
ins = inspector.OpenInspector(pb.OpenInspector.Request(deployment_handle=dh))
check(ins.inspector_handle != 0, "inspector: %s" % ins.diagnostics)
r = inspector.InspectExpression(pb.InspectExpression.Request(inspector_handle=ins.inspector_handle,
                                                             expression="output.greeting_file"))
check(not r.diagnostics, "inspect: %s" % [d.summary for d in r.diagnostics])
step("inspected", value=json.loads(r.value_json), type=r.type, sensitive=r.sensitive)
r = inspector.InspectExpression(pb.InspectExpression.Request(inspector_handle=ins.inspector_handle,
                                                             expression="resource.nope"))
check(r.diagnostics and not r.value_json, "bad expression had no diagnostics")

# 8. Close every handle (the inspector first: it depends on the deployment).
inspector.CloseInspector(pb.CloseInspector.Request(inspector_handle=ins.inspector_handle))

# 9. Destroy.
changes, complete = plan(destroy=True)
applied, done, _ = apply(complete.plan_handle)
step("destroyed", destroyed=done.destroyed)
deployments.CloseDeployment(pb.CloseDeployment.Request(deployment_handle=dh))
step("closed")

# The process exits when the client closes.
channel.close()
start = time.monotonic()
code = proc.wait(timeout=120)
step("exited", code=code)
