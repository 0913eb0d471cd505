"""Every claim and property a chapter states, found in its document (the chapter-file form),
each with its path, whether readers see it, and the fingerprint its verdict is kept under.

The sync, the gate, the dry run and the counts all read this one list, so what is checked, what
blocks publishing and what readers are told cannot disagree.
"""

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..texts import chapter_texts
from ..verification.fingerprints import stored_json
from .properties import property_errors, property_how
from .syntax import Claim, claims_in, known_names, shown


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
