"""Verification: what exactly is checked (fingerprints), when a verdict counts (state), asking
for checks (requests), how they reach the workers (dispatch), deciding them (decide), resending
lost ones (sweep) and what the commands report (reports).

A verdict belongs to one fingerprint of a problem and its solution. The domain sends its tasks
by name; the Celery tasks (curriculum/tasks.py) call into it, never the reverse.
"""

from .decide import jsonable, verdict_decide, verdicts_decide
from .dispatch import Slice, verdict_enqueue_now
from .fingerprints import (
    FINGERPRINTED,
    PROBLEM_FINGERPRINTED,
    fingerprint,
    fingerprint_of,
    fingerprint_store,
)
from .reports import VerdictRow, chapter_verdict_rows, chapter_verify_now, verdicts_await
from .requests import (
    Reverify,
    verdict_request,
    verdicts_all_request,
    verdicts_request,
)
from .state import STALE, counted, verdict_state, with_verdict_state
from .sweep import verdicts_overdue, verdicts_sweep

__all__ = [
    "FINGERPRINTED",
    "PROBLEM_FINGERPRINTED",
    "STALE",
    "Reverify",
    "Slice",
    "VerdictRow",
    "chapter_verdict_rows",
    "chapter_verify_now",
    "fingerprint",
    "fingerprint_of",
    "fingerprint_store",
    "counted",
    "jsonable",
    "verdict_decide",
    "verdict_enqueue_now",
    "verdict_request",
    "verdict_state",
    "verdicts_all_request",
    "verdicts_await",
    "verdicts_decide",
    "verdicts_overdue",
    "verdicts_request",
    "verdicts_sweep",
    "with_verdict_state",
]
