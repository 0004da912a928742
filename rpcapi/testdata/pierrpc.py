"""What every rpcapi test client starts with: Python stubs generated from
pier1.proto, and a `pier rpcapi` server reached through its handshake line.

The scripts beside this file import it; Python puts a script's own
directory first on sys.path.
"""
import os
import subprocess
import sys

# The cookie pier rpcapi checks before it serves, as Terraform's rpcapi does.
MAGIC_COOKIE = "f3c2a1d4-pier-rpcapi-7b9e"


def stubs(proto_dir, out):
    """Generate the pier1 message and service modules into out and import them."""
    from grpc_tools import protoc

    rc = protoc.main(["protoc", "-I" + proto_dir, "--python_out=" + out, "--grpc_python_out=" + out,
                      os.path.join(proto_dir, "pier1.proto")])
    if rc != 0:
        sys.exit("protoc failed: %d" % rc)
    sys.path.insert(0, out)
    import pier1_pb2
    import pier1_pb2_grpc
    return pier1_pb2, pier1_pb2_grpc


def start(pier, cwd):
    """Start pier rpcapi in cwd; return the process and a ready channel to it."""
    import grpc

    env = dict(os.environ, PIER_RPCAPI_MAGIC_COOKIE=MAGIC_COOKIE)
    proc = subprocess.Popen([pier, "rpcapi"], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env)
    sock = proc.stdout.readline().decode().strip().split("|")[3]
    channel = grpc.insecure_channel("unix:" + sock)
    grpc.channel_ready_future(channel).result(timeout=120)
    return proc, channel
