"""Each process's own copies of bytes whose key names their version (the shared cache is
Django's own: Redis, or its database cache where there is no Redis; settings.CACHES)."""

import threading
from collections import OrderedDict


class ProcessBytes:
    """This process's copies of bytes kept under a key that names their version (a chapter body
    made for one version stays those bytes as long as that key is asked for), so another worker
    never serves them stale and a hit costs no round trip. The least recently read go first, at
    most `limit` bytes in all; a body over an eighth of that is never kept, so one huge chapter
    cannot push out the rest. Only for such keys: a count (a throttle's) must be shared."""

    def __init__(self, limit: int) -> None:
        self.limit, self.size = limit, 0
        self.items: OrderedDict[str, bytes] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self.lock:
            body = self.items.get(key)
            if body is not None:
                self.items.move_to_end(key)
            return body

    def set(self, key: str, body: bytes) -> None:
        if len(body) > self.limit // 8:
            return
        with self.lock:
            old = self.items.pop(key, None)
            self.size += len(body) - (len(old) if old is not None else 0)
            self.items[key] = body
            while self.size > self.limit:
                _, dropped = self.items.popitem(last=False)
                self.size -= len(dropped)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.size = 0
