#!/usr/bin/env bash
# KaTeX and STIX Two Math (both pinned by katex/package-lock.json): KaTeX typesets TeX to
# MathML on the server; the font (OFL) is copied into static/site/fonts/, where whitenoise
# serves it, so readers' brackets and operators stretch without any system font. Does nothing
# when node_modules already matches the lock file and the copied font matches the package.
set -euo pipefail
cd "$(dirname "$0")/../katex"
installed=node_modules/.package-lock.json
if [ ! -f "$installed" ] || [ package-lock.json -nt "$installed" ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
font=node_modules/@fontsource/stix-two-math
served=../static/site/fonts
cmp -s "$font/files/stix-two-math-latin-400-normal.woff2" "$served/stix-two-math.woff2" \
  || cp "$font/files/stix-two-math-latin-400-normal.woff2" "$served/stix-two-math.woff2"
cmp -s "$font/LICENSE" "$served/STIX-Two-Math-OFL.txt" \
  || cp "$font/LICENSE" "$served/STIX-Two-Math-OFL.txt"
