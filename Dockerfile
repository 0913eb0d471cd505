# The app image for docker-compose.yml: Python 3.12 with the locked packages, and Node.js for
# KaTeX, which typesets mathematics on the server.
FROM python:3.12-slim
RUN apt-get update && apt-get install -y --no-install-recommends nodejs npm \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock
COPY katex/package.json katex/package-lock.json katex/
RUN cd katex && npm ci --no-audit --no-fund
COPY . .
RUN scripts/install-katex.sh
