"""gunicorn's settings that have no command-line flag (scripts/serve.sh passes this file)."""

# The scheme is Django's to decide (SECURE_PROXY_SSL_HEADER, only with DJANGO_BEHIND_TLS_PROXY=1).
# gunicorn believes X-Forwarded-Proto from any peer on its unix socket, and that peer is nginx
# passing on whatever the client wrote: a client would name https in every absolute link.
secure_scheme_headers: dict[str, str] = {}
