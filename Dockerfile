# The production image (docker-compose.yml): Python 3.12 with the locked packages in .venv,
# Node.js for KaTeX (which typesets mathematics on the server), Chromium for the worker's PDFs,
# and `make serve` as its command:
# nginx in front of gunicorn when run alone; docker-compose.yml sets GUNICORN_BIND and puts its
# own nginx service in front instead.
FROM python:3.12-slim
RUN apt-get update && apt-get install -y --no-install-recommends nodejs npm make nginx chromium \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.lock ./
RUN python -m venv .venv && .venv/bin/pip install --no-cache-dir --require-hashes -r requirements.lock
COPY katex/package.json katex/package-lock.json katex/
RUN cd katex && npm ci --no-audit --no-fund
COPY . .
RUN scripts/install-katex.sh && touch .venv/.installed
ENV DJANGO_DEBUG=0 HOST=0.0.0.0
EXPOSE 8000
CMD ["make", "serve"]
