"""What a chapter's claims and properties say to the gate, to authors and to readers' counts:
each claim readers would see must be verified for exactly what it states."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from curriculum.models import ClaimVerdict

from ..actions import Reason
from .found import Found, found_in


def claim_verdicts(found: Iterable[Found]) -> dict[str, ClaimVerdict]:
    """The verdict kept for each found claim's fingerprint (one query)."""
    fingerprints = {item.fingerprint for item in found}
    return {
        row.fingerprint: row for row in ClaimVerdict.objects.filter(fingerprint__in=fingerprints)
    }


@dataclass(frozen=True)
class Checked:
    found: Found
    status: str  # pending when no verdict is kept yet
    message: str
    value: Any


def checked_in(document: Mapping[str, Any]) -> list[Checked]:
    """Every claim and property of the document with its verdict (one query)."""
    found = found_in(document)
    rows = claim_verdicts(found)
    checked = []
    for item in found:
        row = rows.get(item.fingerprint)
        status = row.status if row else ClaimVerdict.Status.PENDING
        checked.append(
            Checked(item, status, row.message if row else "", row.engine_value if row else None)
        )
    return checked


def claim_reasons(document: Mapping[str, Any]) -> list[str]:
    """A gate reason for each claim or property readers would see that is not verified."""
    reasons: list[str] = []
    for each in checked_in(document):
        if each.found.visible and each.status != ClaimVerdict.Status.VERIFIED:
            detail = f": {each.message}" if each.message else ""
            what = "claim" if each.found.kind == "claim" else "property"
            said = f"{each.found.path}: {what} {each.found.said}"
            words = f"{said} is not verified ({each.status}{detail})"
            reasons.append(Reason(words, each.found.path))
    return reasons


def checks_counted(checked: list[Checked]) -> dict[str, int]:
    """How many claims and checked propositions readers are shown, and how many are verified."""
    counts = {"claims": 0, "claims_verified": 0, "properties": 0, "properties_verified": 0}
    for each in checked:
        if not each.found.visible:
            continue
        key = "claims" if each.found.kind == "claim" else "properties"
        counts[key] += 1
        counts[f"{key}_verified"] += each.status == ClaimVerdict.Status.VERIFIED
    return counts
