#!/usr/bin/env bash
# Production: migrate, collect static files, then gunicorn on ${HOST:-127.0.0.1}:$PORT, behind
# the TLS proxy the deployment puts in front. With CELERY_BROKER_URL set, a verifier worker with
# its sweep (beat) runs beside it. No seed content: a production database holds its own.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
missing=()
for name in DJANGO_SECRET_KEY DJANGO_ALLOWED_HOSTS; do
  [ -n "${!name:-}" ] || missing+=("$name")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "make serve: set ${missing[*]} (see README, Configuration); nothing was started." >&2
  exit 2
fi
export DJANGO_DEBUG="${DJANGO_DEBUG:-0}"
# Gunicorn answers on loopback only; the proxy in front terminates TLS and redirects to HTTPS
# (set DJANGO_SECURE_SSL_REDIRECT=1 and DJANGO_BEHIND_TLS_PROXY=1 to have Django do it too).
export DJANGO_SECURE_SSL_REDIRECT="${DJANGO_SECURE_SSL_REDIRECT:-0}"
$BIN/python manage.py ensure_database
$BIN/python manage.py migrate --noinput
$BIN/python manage.py createcachetable  # the cache every gunicorn worker shares (no CACHE_URL)
$BIN/python manage.py collectstatic --noinput --verbosity 0
mkdir -p var
if [ -n "${CELERY_BROKER_URL:-}" ]; then
  $BIN/celery -A curriculum worker --beat --loglevel=warning --schedule var/celerybeat-schedule &
  worker=$!
  trap 'kill $worker 2>/dev/null || true' EXIT
fi
workers="${WEB_CONCURRENCY:-$((2 * $(nproc) + 1))}"
echo "Serving on http://${HOST:-127.0.0.1}:${PORT:-8000}/ with $workers gunicorn workers"
$BIN/gunicorn curriculum.wsgi:application --bind "${HOST:-127.0.0.1}:${PORT:-8000}" \
  --workers "$workers" --timeout "${GUNICORN_TIMEOUT:-60}" --access-logfile - &
server=$!
trap 'kill $server ${worker:-} 2>/dev/null || true' EXIT INT TERM
wait $server
