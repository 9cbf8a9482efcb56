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
exec .venv/bin/copilot review examples/wordfreq/paper.md examples/wordfreq/artifact --out reports/wordfreq --force "$@"
