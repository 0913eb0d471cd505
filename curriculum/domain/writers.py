"""Who is writing, and through what: what a chapter's history records of each write.

An entry point names its door (`writing(via="API")`: admin and the API by their middleware,
the import command, a revert with its note); an action names its user when nobody outside it
has. `revisions.chapters_moved` reads it in the writing transaction, so the history records
it once that commits, after the entry point has returned.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Writer:
    user: Any = None  # None, or anonymous, for the system
    via: str = ""  # "admin", "API", "import", "revert"…; "" when no entry point said
    note: str = ""  # what the history says of the write ("reverted to revision 3")


NOBODY = Writer()  # the system, through no named door
_writer: ContextVar[Writer | None] = ContextVar("writer", default=None)


@contextmanager
def writing(*, user: Any = None, via: str = "", note: str = "") -> Iterator[None]:
    """Writes inside are by `user` unless an outer caller named one; through `via`, with
    `note`, when given (the innermost door is the one written through)."""
    outer = writer_now()
    named = outer if getattr(outer.user, "pk", None) else replace(outer, user=user)
    door = replace(named, via=via, note=note) if via else named
    token = _writer.set(door)
    try:
        yield
    finally:
        _writer.reset(token)


def writer_now() -> Writer:
    return _writer.get() or NOBODY


_sends: ContextVar[dict[Writer, Any] | None] = ContextVar("sends", default=None)


@contextmanager
def one_write() -> Iterator[None]:
    """An action's transaction (`actions.execute`): what it moves is announced once for each
    writer (`revisions.chapters_moved`), however many times it moves it. An inner one joins."""
    if _sends.get() is not None:
        yield
        return
    token = _sends.set({})
    try:
        yield
    finally:
        _sends.reset(token)


def sends_of_this_write() -> dict[Writer, Any] | None:
    """The announcements this action has made so far, by writer; None outside an action."""
    return _sends.get()
