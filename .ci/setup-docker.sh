#!/usr/bin/env bash
# Docker Engine for the `docker`-marked tests (tests/test_sandbox_docker.py, tests/test_hostile.py):
# install docker.io and debootstrap, start dockerd in the background, wait for its socket, and build
# the base image locally (no registry is reachable: debootstrap + docker import, about a minute).
# Idempotent and fast when everything is already there. If the engine cannot run on this machine
# the docker tests skip with the reason, so this script warns instead of failing CI.
set -uo pipefail

IMAGE="${COPILOT_BASE_IMAGE:-artifactcopilot/base:bookworm}"
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

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "base image $IMAGE present"
else
  python -c "from artifactcopilot.sandbox.image import connect, ensure_base_image; ensure_base_image(connect(), '$IMAGE')" \
    || warn "building $IMAGE failed: docker tests will be skipped"
fi
