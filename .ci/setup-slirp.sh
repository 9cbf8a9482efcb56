#!/usr/bin/env bash
# slirp4netns for the local sandbox (artifactcopilot/sandbox/usernet.py): a network-on step keeps its own network
# namespace with a user-mode network, the host's loopback closed, and only the configured proxy's port forwarded in.
# Without it the local sandbox gives such a step the host's network and the report says so. Idempotent.
set -euo pipefail

if command -v slirp4netns >/dev/null 2>&1; then
  echo "slirp4netns already installed: $(slirp4netns --version | head -1)"
else
  export DEBIAN_FRONTEND=noninteractive
  apt-cache show slirp4netns >/dev/null 2>&1 || apt-get update -qq
  if apt-get install -y -qq --no-install-recommends slirp4netns >/dev/null; then
    echo "slirp4netns installed: $(slirp4netns --version | head -1)"
  else
    echo "setup-slirp: warning: slirp4netns could not be installed; network-on steps of the local sandbox share the host's network" >&2
  fi
fi
