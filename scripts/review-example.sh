#!/usr/bin/env bash
# Set up (a virtual environment in .venv with the package installed, once) and review the bundled example
# artifact offline, with no API key: the report lands in reports/wordfreq/ (report.html, report.md, report.json).
# Extra arguments go to `copilot review`, e.g. --sandbox local or --quiet.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/copilot ]; then
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[test]'
fi
# Artifact commands run in a sandbox: Docker when its engine answers, else bubblewrap, installed here when missing.
if ! command -v bwrap >/dev/null 2>&1 && ! docker version >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    bash .ci/setup-bwrap.sh
  else
    echo "review-example: neither bubblewrap nor a Docker engine is available; install bubblewrap" \
         "(e.g. sudo apt-get install bubblewrap) and run this again" >&2
    exit 1
  fi
fi
exec .venv/bin/copilot review examples/wordfreq/paper.md examples/wordfreq/artifact --out reports/wordfreq --force "$@"
