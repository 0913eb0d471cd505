"""A webhook receiver as a user would write one: an HTTP server on 127.0.0.1 (a free port) in a
thread, verifying each delivery's signature as README says, and answering as told: 204, 500,
not at all for a while (`hang`), or a byte at a time (`trickle`: seconds between bytes;
`trickle_body`: a 200's status and headers at once, then its body a byte at a time)."""

import hashlib
import hmac
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOLERANCE_SECONDS = 300  # a signed timestamp older than this is a replay


def verified(*, secret: str, headers, body: bytes, now: float | None = None) -> bool:
    """Whether a delivery is signed with `secret` and was signed within the tolerance of `now`
    (this machine's clock): neither forged nor replayed later."""
    timestamp = headers.get("X-Webhook-Timestamp", "")
    now = time.time() if now is None else now
    if not timestamp.isdigit() or abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    given = headers.get("X-Webhook-Signature", "")
    return hmac.compare_digest(given, "sha256=" + expected.hexdigest())


@dataclass
class Receiver:
    secret: str = ""
    answer: int = 204
    hang: float = 0.0
    trickle: float = 0.0
    trickle_body: float = 0.0
    received: list[tuple[dict, bytes, bool]] = field(default_factory=list)

    def __post_init__(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                good = verified(secret=receiver.secret, headers=self.headers, body=body)
                receiver.received.append((dict(self.headers), body, good))
                if receiver.hang:
                    time.sleep(receiver.hang)
                if receiver.trickle:
                    self.trickle(b"HTTP/1.1 204 No Content\r\nX-Slowly: " + b"." * 100)
                    return
                if receiver.trickle_body:
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
                    self.wfile.flush()
                    self.trickle(b"." * 100, receiver.trickle_body)
                    return
                self.send_response(receiver.answer if good else 401)
                self.end_headers()
                self.wfile.write(b"ok" if good else b"bad signature")

            def trickle(self, answer: bytes, seconds: float = 0.0) -> None:
                try:
                    for byte in answer:
                        self.wfile.write(bytes([byte]))
                        time.sleep(seconds or receiver.trickle)
                except OSError:  # the sender stopped listening
                    self.close_connection = True

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
