"""Python's cycle collector paused while one large document is built and written.

Reading a 20,000-problem file makes about a million lists and dicts that all stay alive; each
full collection on the way walks every one of them again, a tenth of the import's time. What
the import leaves as garbage is collected when it ends.
"""

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collection_paused() -> Iterator[None]:
    """Nests: only the outermost pause turns the collector back on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
