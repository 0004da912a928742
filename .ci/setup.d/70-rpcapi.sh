#!/usr/bin/env bash
# pier console and pier rpcapi: tmux gives the console test a real
# terminal; python3-grpcio and python3-grpc-tools are the gRPC client
# nobody here wrote, which the rpcapi scenario compiles pier's .proto with
# and drives pier rpcapi from.
set -euo pipefail
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux python3 python3-grpcio python3-grpc-tools >/dev/null
