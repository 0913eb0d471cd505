"""Load generator for bench/api: threads with keep-alive http.client connections.

Runs in its own process (so it does not share the server's CPU accounting or the GIL with
the benchmark driver), hits one URL for at most `--seconds` or `--requests`, whichever comes
first, and prints one JSON line: requests, seconds, req/s, p50/p95 in ms, status counts, and
every latency (so runs in several rounds can be put together).
"""

import argparse
import http.client
import json
import statistics
import threading
import time
from collections import Counter


def worker(host, port, path, headers, deadline, budget, lock, latencies, statuses):
    connection = http.client.HTTPConnection(host, port, timeout=10)
    while time.perf_counter() < deadline:
        with lock:
            if budget[0] <= 0:
                break
            budget[0] -= 1
        started = time.perf_counter()
        try:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.read()
            status = response.status
        except (OSError, http.client.HTTPException):
            connection.close()
            connection = http.client.HTTPConnection(host, port, timeout=10)
            status = 0
        elapsed = time.perf_counter() - started
        with lock:
            latencies.append(elapsed)
            statuses[status] += 1
    connection.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", required=True)
    parser.add_argument("--header", action="append", default=[], help="Name: value")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--requests", type=int, default=5000)
    args = parser.parse_args()
    headers = dict(h.split(": ", 1) for h in args.header)
    lock, latencies, statuses = threading.Lock(), [], Counter()
    budget = [args.requests]
    started = time.perf_counter()
    deadline = started + args.seconds
    # each connection is its own client, as behind one trusted proxy (bench/api serves with
    # NUM_PROXIES=1): a throttle counts one client's reads, not every thread's
    threads = [
        threading.Thread(
            target=worker,
            args=(
                "127.0.0.1",
                args.port,
                args.path,
                headers | {"X-Forwarded-For": f"198.51.100.{number + 1}"},
                deadline,
                budget,
                lock,
                latencies,
                statuses,
            ),
        )
        for number in range(args.threads)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    cuts = statistics.quantiles(latencies, n=20) if len(latencies) > 1 else [0.0] * 19
    print(
        json.dumps(
            {
                "requests": len(latencies),
                "seconds": seconds,
                "rps": len(latencies) / seconds,
                "p50_ms": statistics.median(latencies) * 1000 if latencies else 0.0,
                "p95_ms": cuts[18] * 1000,
                "statuses": {str(k): v for k, v in sorted(statuses.items())},
                "latencies_ms": [round(latency * 1000, 3) for latency in latencies],
            }
        )
    )


if __name__ == "__main__":
    main()
