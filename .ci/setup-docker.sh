#!/usr/bin/env bash
# Docker Engine for the `docker`-marked tests (tests/sandbox/, tests/test_hostile.py): install docker.io and
# debootstrap, start dockerd in the background, wait for its socket, and build the base images locally (no
# registry is reachable: debootstrap + docker import, then apt in a docker build; 2-3 minutes per image on
# 2 cores). One image per Debian suite, hence per Python version: bookworm (3.11, the default), trixie (3.13),
# bullseye (3.9); COPILOT_BASE_SUITES chooses others. Idempotent: an image built by the current recipe is
# kept, so a second run takes seconds. If the engine cannot run on this machine the docker tests skip with
# the reason, so this script warns instead of failing CI.
set -uo pipefail

SUITES="${COPILOT_BASE_SUITES:-bookworm trixie bullseye}"
LOG="${DOCKERD_LOG:-/var/log/dockerd-ci.log}"
SOCK=/var/run/docker.sock
export DEBIAN_FRONTEND=noninteractive

warn() { echo "setup-docker: $*" >&2; exit 0; }

if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
  apt-cache show docker.io >/dev/null 2>&1 || apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends docker.io debootstrap >/dev/null || warn "apt-get install docker.io debootstrap failed"
fi

engine_up() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

if ! engine_up; then
  # A pid file left by a daemon that was killed with the machine's previous session blocks a restart.
  for pidfile in /var/run/docker.pid /var/run/docker/containerd/containerd.pid; do
    if [ -f "$pidfile" ] && ! kill -0 "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null; then rm -f "$pidfile"; fi
  done
  mkdir -p "$(dirname "$LOG")"
  nohup dockerd >"$LOG" 2>&1 </dev/null &
  for _ in $(seq 1 60); do
    [ -S "$SOCK" ] && engine_up && break
    sleep 1
  done
  engine_up || warn "dockerd did not come up in 60 s (log: $LOG): docker tests will be skipped"
fi
echo "docker engine $(docker version --format '{{.Server.Version}}')"

for suite in $SUITES; do
  python - "$suite" <<'EOF' || echo "setup-docker: building the $suite base image failed: tests that need it will be skipped" >&2
import sys
import time

from artifactcopilot.sandbox.baseimage import ensure_base_image, inspect_base
from artifactcopilot.sandbox.image import base_image_name, connect

suite, start = sys.argv[1], time.monotonic()
built = ensure_base_image(connect(timeout=30), base_image_name(suite), log=lambda line: print(f"  {line}", flush=True))
status = inspect_base(connect(timeout=30), suite)
print(f"base image {status.name}: Python {status.python}, {status.size_mb} MB, "
      + (f"built in {time.monotonic() - start:.0f} s" if built else "present"))
EOF
done
