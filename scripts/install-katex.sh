#!/usr/bin/env bash
# KaTeX (pinned by katex/package-lock.json) for server-side TeX to MathML; does nothing when
# node_modules already matches the lock file.
set -euo pipefail
cd "$(dirname "$0")/../katex"
installed=node_modules/.package-lock.json
if [ ! -f "$installed" ] || [ package-lock.json -nt "$installed" ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
