#!/usr/bin/env bash
# Production: migrate, collect static files, then nginx on ${HOST:-127.0.0.1}:$PORT in front of
# gunicorn on a unix socket (nginx buffers every request and answer, so slow clients never hold
# gunicorn's workers), behind the TLS proxy the deployment puts in front. With GUNICORN_BIND set
# (docker-compose.yml: 0.0.0.0:8000) gunicorn binds there and no nginx is started: the
# deployment's own proxy is in front. With CELERY_BROKER_URL set, a verifier worker with its
# sweep (beat) runs beside it. No seed content: a production database holds its own.
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
# The proxy in front terminates TLS and redirects to HTTPS (set DJANGO_SECURE_SSL_REDIRECT=1
# and DJANGO_BEHIND_TLS_PROXY=1 to have Django do it too).
export DJANGO_SECURE_SSL_REDIRECT="${DJANGO_SECURE_SSL_REDIRECT:-0}"
HOST="${HOST:-127.0.0.1}" PORT="${PORT:-8000}"
# However it ends, from its first step (a test run interrupted while this starts, which sends
# it SIGTERM): stop what it started, let them finish stopping (gunicorn unlinks its own
# socket), then tidy up; a signal ends the script there rather than letting it go on.
trap 'kill ${server:-} ${proxy:-} ${worker:-} 2>/dev/null || true
  wait ${server:-} ${proxy:-} ${worker:-} 2>/dev/null || true; rm -rf "${NGINX_DIR:-}"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ -z "${GUNICORN_BIND:-}" ]; then
  scripts/install-nginx.sh
  export NUM_PROXIES="${NUM_PROXIES:-1}"  # this nginx; one more for each proxy before it
  NGINX_DIR="$PWD/var/serve-$PORT"
  mkdir -p "$NGINX_DIR"
  socket="$NGINX_DIR/gunicorn.sock"
  rm -f "$socket"
fi
$BIN/python manage.py ensure_database
$BIN/python manage.py migrate --noinput  # and the cache's table, where there is no Redis
$BIN/python manage.py collectstatic --noinput --verbosity 0
$BIN/python manage.py first_steps  # a new database: how to make the first admin, load content
mkdir -p var
if [ -n "${CELERY_BROKER_URL:-}" ]; then
  $BIN/celery -A curriculum worker --beat --loglevel=warning --schedule var/celerybeat-schedule &
  worker=$!
fi
workers="${WEB_CONCURRENCY:-$((2 * $(nproc) + 1))}"
$BIN/gunicorn -c deploy/gunicorn.conf.py curriculum.wsgi:application --bind "${GUNICORN_BIND:-unix:$socket}" \
  --workers "$workers" --timeout "${GUNICORN_TIMEOUT:-60}" &
server=$!
if [ -z "${GUNICORN_BIND:-}" ]; then
  # nginx starts once gunicorn listens, so nothing is refused while it boots (requests queue)
  until [ -S "$socket" ]; do
    kill -0 $server 2>/dev/null || { echo "make serve: gunicorn did not start" >&2; exit 1; }
    sleep 0.1
  done
  user=""
  [ "$(id -u)" -ne 0 ] || user="user $(id -un) $(id -gn);"  # as root, workers as root too
  render() {
    HOST="$HOST" PORT="$PORT" UPSTREAM="unix:$socket" NGINX_DIR="$NGINX_DIR" NGINX_USER="$user" \
      $BIN/python -c 'import os, string, sys
names = ("HOST", "PORT", "UPSTREAM", "NGINX_DIR", "NGINX_USER")
text = open(sys.argv[1], encoding="utf-8").read()
print(string.Template(text).safe_substitute({name: os.environ[name] for name in names}))' "$1"
  }
  render deploy/nginx/curriculum.conf.template >"$NGINX_DIR/curriculum.conf"
  render deploy/nginx/nginx.conf.template >"$NGINX_DIR/nginx.conf"
  nginx -e stderr -c "$NGINX_DIR/nginx.conf" &
  proxy=$!
  echo "Serving on http://$HOST:$PORT/ (nginx, then $workers gunicorn workers)"
else
  echo "Serving gunicorn on $GUNICORN_BIND with $workers workers, behind the deployment's proxy"
fi
wait -n ${server} ${proxy:-}  # either one ending ends the other (the trap)
