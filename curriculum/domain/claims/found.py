"""Every claim and property a chapter states, found in its document (the chapter-file form),
each with its path, whether readers see it, and the fingerprint its verdict is kept under.

The sync, the gate, the dry run and the counts all read this one list, so what is checked, what
blocks publishing and what readers are told cannot disagree.
"""

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from attention.expressions import ExpressionError

from ..texts import chapter_texts
from ..verification.fingerprints import stored_json
from .pattern import CLAIM
from .properties import property_errors, property_how
from .syntax import Claim, claim_of, claims_in, known_names, shown


@dataclass(frozen=True)
class Found:
    path: str  # where it is written: problems[0].solution.steps
    kind: str  # "claim" or "property"
    spec: dict[str, Any]  # what the worker decides, context included
    visible: bool  # readers see it once the chapter is released
    said: str  # the claim as written, or the property's relation
    words: str  # how it is checked, for readers and reasons

    @property
    def fingerprint(self) -> str:
        text = stored_json({"kind": self.kind, "spec": self.spec})
        return hashlib.sha256(text.encode()).hexdigest()


def _claim(path: str, claim: Claim, visible: bool, context: dict | None) -> Found:
    spec = claim.spec | ({"context": context} if context is not None else {})
    return Found(path, "claim", spec, visible, shown(claim.said()), claim.words())


def found_in(document: Mapping[str, Any]) -> list[Found]:
    """Every well-formed claim and property, in document order (validation reports the rest)."""
    found = []
    for path, text, visible, context in chapter_texts(document):
        if "{{" in text:
            names = known_names(context)
            found += [
                _claim(path, claim, visible, context)
                for claim in claims_in(text)
                if claim.expression.names <= names
            ]
    for i, prop in enumerate(document.get("propositions") or []):
        check = prop.get("check")
        if check is not None and not property_errors(check):
            spec = {key: check[key] for key in check if key != "note"}
            said = f"Prop. {prop.get('number')}: {check['holds']}"
            found.append(
                Found(f"propositions[{i}].check", "property", spec, True, said, property_how(check))
            )
    return found


def claims_stated(text: str, context: dict | None, states: Mapping[str, str]) -> str:
    """The text with each claim that is not verified carrying its state (`states`: by
    fingerprint; none kept is pending), so readers' marks say what the engine said."""
    if "{{" not in text:
        return text
    text = text.replace("\ue004", "").replace("\ue005", "")

    def stated(found: re.Match) -> str:
        try:
            claim = claim_of(found)
        except ExpressionError:
            return found.group()
        state = states.get(_claim("", claim, True, context).fingerprint, "pending")
        return (
            found.group() if state == "verified" else f"{{{{\ue004{state}\ue005{found.group()[2:]}"
        )

    return CLAIM.sub(stated, text)
