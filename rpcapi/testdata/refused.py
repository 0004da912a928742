"""Plan destroying a deployment over pier rpcapi and print the plan's
diagnostics, one JSON list of objects with severity, summary, detail,
address and subject (filename and start line and column, or null).

usage: refused.py PIER PROTO_DIR OUT_DIR DEPLOYMENT_DIR
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

dh = deployments.OpenDeployment(pb.OpenDeployment.Request(dir=deployment)).deployment_handle
diags = []
for ev in deployments.PlanDeployment(pb.PlanDeployment.Request(deployment_handle=dh, destroy=True)):
    if ev.WhichOneof("event") == "diagnostic":
        d = ev.diagnostic
        subject = None
        if d.HasField("subject"):
            subject = [os.path.basename(d.subject.filename), d.subject.start.line, d.subject.start.column]
        diags.append({"severity": pb.Diagnostic.Severity.Name(d.severity), "summary": d.summary, "detail": d.detail,
                      "address": d.address, "subject": subject})
print(json.dumps(diags), flush=True)
channel.close()
proc.wait(timeout=120)
