"""What a publish makes: a release only when readers would see a change, recorded with who made
it; and what the publisher is told.

A chapter is the same release when its snapshot is, but for when the engine last decided its
verdicts: checked again with the same outcome, nothing readers see is new (the issue a tester
found: two publishes 8 s apart made release 1 and release 2, "nothing a reader sees changed").
"""

import json
from dataclasses import dataclass
from typing import Any

from attention.tiny import EXACT_FLOATS
from curriculum.models import Release

# When a verdict was last decided: not a version of the chapter.
UNVERSIONED_KEYS = frozenset({"decided_at"})
SYSTEM = "system"  # a release made with no user: the seed, a command run without --user


def release_maker(*, user: Any = None, via: str = "") -> str:
    """Who made a release, as lists show it for good (a user deleted later included): the
    user's name, or the system and what ran it."""
    if getattr(user, "pk", None):
        return user.get_username()
    return f"{SYSTEM} ({via})" if via else SYSTEM


def release_unchanged(*, snapshot: dict[str, Any], latest: Release | None) -> bool:
    """Whether a release of `snapshot` would show readers nothing `latest` does not."""
    if latest is None:
        return False
    # as stored: JSON has no tuples, and PostgreSQL's jsonb no key order
    return _versioned(json.loads(json.dumps(snapshot))) == _versioned(latest.snapshot)


def _versioned(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _versioned(v) for k, v in value.items() if k not in UNVERSIONED_KEYS}
    if isinstance(value, list):
        return [_versioned(v) for v in value]
    # past 2**53 a whole float is not the integer jsonb writes it as: 1e308 comes back as 10**308,
    # which Python never calls equal to 1e308 (every publish of such an input made a release)
    if type(value) is int and abs(value) > EXACT_FLOATS:  # as float64 holds it, on both sides
        try:
            return float(value)
        except OverflowError:  # past float range: no float was stored as it
            return value
    return value


@dataclass(frozen=True)
class Publication:
    """What a publish did: `release` is the new one, or (`made` False) the latest, unchanged."""

    release: Release
    made: bool
    shown_again: bool = False  # a withdrawn chapter readers see again
    notes_unrecorded: bool = False  # notes were given, and no release was made to hold them

    @property
    def message(self) -> str:
        code, number = self.release.chapter.code, self.release.number
        if self.made:
            return f"Published {code} as release {number}."
        again = f"; readers see release {number} again" if self.shown_again else ""
        unrecorded = (
            " The release notes were not recorded: notes go with the release they describe."
            if self.notes_unrecorded
            else ""
        )
        return (
            f"{code}: nothing readers see changed since release {number}; "
            f"no new release was made{again}.{unrecorded}"
        )
