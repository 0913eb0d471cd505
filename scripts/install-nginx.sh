#!/usr/bin/env bash
# Debian's nginx, the buffering proxy `make serve` puts in front of gunicorn; does nothing when
# already installed. The package's own service is never started: serve.sh runs its own nginx.
set -euo pipefail
if command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; then
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then  # tell the package's scripts not to start its service
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  trap 'rm -f "$policy"' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends nginx >/dev/null
