#!/usr/bin/env bash
# Debian's Chromium (Playwright drives it), for the browser tests; does nothing when already installed.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
