#!/usr/bin/env bash
# Headless Chromium for the dashboard/report browser tests (tests/test_browser.py).
# Idempotent: does nothing when /usr/bin/chromium is already there.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists only when apt does not know the package yet.
if ! apt-cache show chromium >/dev/null 2>&1; then
  apt-get -o DPkg::Lock::Timeout=600 update -q
fi
apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends chromium fonts-dejavu-core >/dev/null
/usr/bin/chromium --version
