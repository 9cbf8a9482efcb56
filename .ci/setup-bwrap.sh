#!/usr/bin/env bash
# bubblewrap for the local sandbox (artifactcopilot/sandbox/local.py, tests/sandbox/): every artifact
# command runs in its own bwrap sandbox. Idempotent. After installing, run the sandbox's own self-test;
# if this machine refuses the namespaces it needs (e.g. unprivileged user namespaces disabled), say so:
# `--sandbox local` then refuses with that reason and the local-sandbox tests skip with it.
set -euo pipefail

if command -v bwrap >/dev/null 2>&1; then
  echo "bubblewrap already installed: $(bwrap --version)"
else
  export DEBIAN_FRONTEND=noninteractive
  apt-cache show bubblewrap >/dev/null 2>&1 || apt-get update -qq
  apt-get install -y -qq --no-install-recommends bubblewrap >/dev/null
  echo "bubblewrap installed: $(bwrap --version)"
fi

cd "$(dirname "$0")/.."
python=python3
[ -x .venv/bin/python ] && python=.venv/bin/python
if problem=$("$python" -c 'from artifactcopilot.sandbox.bwrap import probe; print(probe() or "")' 2>&1); then
  if [ -n "$problem" ]; then echo "setup-bwrap: warning: $problem" >&2; else echo "local sandbox self-test passed"; fi
else
  echo "setup-bwrap: warning: could not run the local sandbox self-test: $problem" >&2
fi
