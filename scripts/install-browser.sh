#!/usr/bin/env bash
# Debian's Chromium (the worker prints PDFs with it; Playwright drives it in the browser tests)
# and poppler-utils (pdftotext reads the PDFs back in tests); does nothing when both are there.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/pdftotext ]; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium poppler-utils >/dev/null
