"""Where and how a webhook is sent: a POST to an http or https URL whose host resolves to public
addresses only, so a registered URL cannot make the worker reach the machine itself, its
private network or a cloud's metadata service (SSRF).

The host is resolved when an endpoint is registered and again at each delivery; the delivery
connects to an address it just checked, never resolving the name a second time, so a name that
later resolves elsewhere (DNS rebinding) is refused, not followed. A redirect is an answer, not
followed. Hosts named in WEBHOOK_ALLOWED_PRIVATE_HOSTS (a local receiver) may resolve anywhere.

Resolving and connecting take at most WEBHOOK_CONNECT_TIMEOUT_SECONDS each; then sending and the
whole answer at most WEBHOOK_READ_TIMEOUT_SECONDS, after which the connection is cut, however
slowly the server trickles its answer.
"""

import contextlib
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

NOT_PUBLIC = ("unspecified", "loopback", "link_local", "multicast", "reserved", "private")

NOT_GLOBAL = tuple(
    ipaddress.ip_network(network) for network in ("192.0.0.0/24", "192.88.99.0/24", "3fff::/20")
)
"""Blocks IANA's special-purpose registries say are not globally reachable (or retired: the
6to4 relays) that Python 3.12's `is_global` still takes for public: protocol assignments,
6to4 relay anycast and IPv6 documentation (RFC 9637)."""


class AddressRefused(ValueError):
    """A URL no delivery may go to, whatever the time: the message says why."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]


def target_checked(url: str) -> Target:
    """The URL's host resolved now, every address checked (AddressRefused); OSError when it
    cannot be resolved now (a failure worth retrying)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AddressRefused(f"{url!r} is not an http or https URL")
    if "@" in parts.netloc:  # credentials in a URL are shown in admin and sent in clear
        raise AddressRefused("a URL with a user or password (user:pass@) is refused")
    try:
        port = parts.port
    except ValueError as bad:
        raise AddressRefused(f"{url!r}: {bad}") from bad
    if port == 0:
        raise AddressRefused("port 0 is no port a server listens on")
    port = port or (443 if parts.scheme == "https" else 80)
    host = parts.hostname
    addresses = _resolved(host, port)
    allowed = {name.strip("[]").lower() for name in settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS}
    if host.lower() not in allowed:
        for address in addresses:
            if kind := _not_public(address):
                raise AddressRefused(
                    f"{host} resolves to {address} ({kind}): webhooks go to public addresses "
                    "only (WEBHOOK_ALLOWED_PRIVATE_HOSTS names exceptions)"
                )
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, host, port, path, addresses)


def _resolved(host: str, port: int) -> tuple[str, ...]:
    """The host's addresses, resolved in a thread so a resolver that never answers costs at
    most the connect timeout."""
    found: dict = {}

    def resolve() -> None:
        try:
            found["infos"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as failed:
            found["error"] = failed

    resolver = threading.Thread(target=resolve, daemon=True, name=f"resolve {host}")
    resolver.start()
    resolver.join(settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS)
    if "error" in found:
        raise found["error"]
    if "infos" not in found:
        raise TimeoutError(f"resolving {host} timed out (WEBHOOK_CONNECT_TIMEOUT_SECONDS)")
    return tuple(dict.fromkeys(str(info[4][0]) for info in found["infos"]))


def _not_public(address: str) -> str:
    """Why `address` is not a public one ("loopback", "private", …), or "" when it is."""
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address):
        ip = ip.ipv4_mapped or ip.sixtofour or ip  # an IPv4 address wrapped in IPv6
    for kind in NOT_PUBLIC:
        if getattr(ip, f"is_{kind}"):
            return kind.replace("_", "-")
    return "" if ip.is_global and not any(ip in network for network in NOT_GLOBAL) else "non-public"


class _Pinned(http.client.HTTPConnection):
    """A connection to the addresses checked, never to what the name resolves to later."""

    def __init__(self, target: Target, timeout: float):
        super().__init__(target.host, target.port, timeout=timeout)
        self.target = target
        self.default_port = 443 if target.scheme == "https" else 80
        self.raw: socket.socket | None = None  # the socket open now, for the watchdog

    def connect(self) -> None:
        deadline = time.monotonic() + settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS
        failed: OSError = TimeoutError("connect timed out (WEBHOOK_CONNECT_TIMEOUT_SECONDS)")
        for address in self.target.addresses:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                self.raw = socket.create_connection((address, self.port), timeout=left)
                break
            except OSError as error:
                failed = error
        if self.raw is None:
            raise failed
        self.sock = self.raw
        if self.target.scheme == "https":  # the certificate is checked for the URL's host
            tls = ssl.create_default_context()
            self.sock = self.raw = tls.wrap_socket(
                self.raw, server_hostname=self.host, do_handshake_on_connect=False
            )
            self.sock.do_handshake()
        self.sock.settimeout(settings.WEBHOOK_READ_TIMEOUT_SECONDS)


def post(target: Target, body: bytes, headers: dict[str, str], limit: int) -> tuple[int, bytes]:
    """POST `body` to `target`: the answer's status and its first `limit` bytes. Raises OSError
    or http.client.HTTPException on a failure, TimeoutError past the timeouts."""
    connection = _Pinned(target, timeout=settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS)
    seconds = settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS + settings.WEBHOOK_READ_TIMEOUT_SECONDS
    cut = threading.Event()

    def cut_off() -> None:
        cut.set()
        if connection.raw is not None:
            with contextlib.suppress(OSError):  # the plain socket's: it wakes a TLS read too
                socket.socket.shutdown(connection.raw, socket.SHUT_RDWR)

    watchdog = threading.Timer(seconds, cut_off)
    watchdog.start()
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        status, answer = response.status, response.read(limit)
    except (OSError, http.client.HTTPException) as failed:
        if cut.is_set():
            raise _too_slow(seconds) from failed
        raise
    finally:
        watchdog.cancel()
        connection.close()
    if cut.is_set():  # cut while trickling: what came is no whole answer, whatever its status
        raise _too_slow(seconds)
    return status, answer


def _too_slow(seconds: float) -> TimeoutError:
    return TimeoutError(
        f"no whole answer within {seconds:g} s (WEBHOOK_CONNECT_TIMEOUT_SECONDS + "
        "WEBHOOK_READ_TIMEOUT_SECONDS)"
    )
