"""An action is one thing a user asks of the course: `check()`, then `execute()`.

`check()` returns every refusal (empty when allowed) and writes nothing: admin shows a button
by it, the API answers 403 or 409 with it. `execute()` takes the action's locks, calls `check()`
under them and raises `refuse(reasons)`, or does the work, all in one transaction, so no caller
can skip the permission. The user is None for the system: a command run without a user
(`publish_chapter --user NAME` runs as NAME, with NAME's role). A chapter's history records
what an action writes as its user's (`writers`).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from django.db import transaction

from .roles import Forbidden, Withheld, refusals, scope_refusal
from .writers import one_write, writing


class Reason(str):
    """A refusal in words that knows the part of the chapter file it is about (`path`, as the
    importer writes one: `problems[2].solution`), where it names one: the API points there;
    everything else reads the words."""

    path: str | None

    def __new__(cls, text: str, path: str | None = None) -> "Reason":
        reason = super().__new__(cls, text)
        reason.path = path
        return reason


@dataclass(kw_only=True)
class Action:
    user: Any = None
    needs: ClassVar[tuple[str, ...]] = ()  # the permissions it always needs (roles.py)
    denied: ClassVar[str | None] = None  # the refusal to give for a missing permission

    def permissions(self) -> Iterable[str]:
        """What the user's role must allow."""
        return self.needs

    def check(self) -> list[str]:
        refused = refusals(user=self.user, permissions=self.permissions())
        if refused and self.denied:  # a token's missing scope is said as such
            return [r for r in refused if isinstance(r, Withheld)] or [self.denied]
        return refused

    def lock(self) -> None:
        """Take the row locks that `check()` must hold under (nothing by default)."""

    def refuse(self, reasons: list[str]) -> Exception:
        return Forbidden("; ".join(reasons))

    def run(self) -> Any:
        raise NotImplementedError

    def execute(self) -> Any:
        with transaction.atomic(), writing(user=self.user), one_write():
            self.lock()
            if reasons := self.check():
                raise scope_refusal(reasons) or self.refuse(reasons)
            return self.run()
