#!/usr/bin/env bash
# Regenerate docs/images/report.png: review the bundled example (scripts/review-example.sh) and take a screenshot of
# its report.html with headless Chromium, with the flags the browser tests use (tests/test_browser.py).
# Needs Chromium (bash .ci/setup-chromium.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
chromium=$(command -v chromium || true)
if [ -z "$chromium" ]; then
  echo "report-screenshot: headless Chromium is not installed (bash .ci/setup-chromium.sh installs it)" >&2
  exit 1
fi
bash scripts/review-example.sh --quiet
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$chromium" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --hide-scrollbars --window-size=1400,1500 \
  --user-data-dir="$profile" --screenshot="$PWD/docs/images/report.png" "file://$PWD/reports/wordfreq/report.html" \
  </dev/null >/dev/null 2>&1
echo "docs/images/report.png written from reports/wordfreq/report.html"
