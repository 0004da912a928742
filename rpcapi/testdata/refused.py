"""Plan destroying a deployment over pier rpcapi and print the plan's
diagnostics, one JSON list of objects with severity, summary, detail,
address and subject (filename and start line and column, or null).

usage: refused.py PIER PROTO_DIR OUT_DIR DEPLOYMENT_DIR
"""
import json
import os
import sys

pier, proto_dir, out, deployment = sys.argv[1:5]

import pierrpc  # noqa: E402

pb, rpc = pierrpc.stubs(proto_dir, out)
proc, channel = pierrpc.start(pier, out)
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
