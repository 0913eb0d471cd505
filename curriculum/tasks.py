"""Celery tasks: thin callers of the verification and scheduled-publishing services; retries
and the task's soft time limit (an interruption of the worker's turn, `Slice`) live here. The
domain sends them by name."""

from datetime import timedelta

from celery import Task, shared_task
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError

from curriculum.domain.claims.requests import claims_decide, claims_sweep
from curriculum.domain.printing import pdf_print, pdfs_sweep
from curriculum.domain.schedules import due_publishes_run
from curriculum.domain.verification import (
    Slice,
    verdict_decide,
    verdict_enqueue_now,
    verdicts_decide,
    verdicts_sweep,
)
from curriculum.domain.webhooks import webhook_deliver_apart, webhooks_sweep
from curriculum.site.printing import pdf_page


class Checks(Task):
    """A run killed by the hard time limit is acknowledged, not redelivered: send its checks
    again, each alone (a level further down), so the one that never finishes runs out of
    attempts (an error verdict) while the others are decided. So too a batch that ran out of
    time outside the engine."""

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        batch = self.name.endswith("verify_batch")
        if isinstance(exc, TimeLimitExceeded) or (batch and isinstance(exc, SoftTimeLimitExceeded)):
            level = (kwargs or {}).get("level", 0) + 1
            for solution_id, checked in _checks(self.name, args, kwargs):
                verdict_enqueue_now(solution_id=solution_id, checked=checked, level=level)


def _checks(name: str, args, kwargs) -> list:
    """The (solution, fingerprint) pairs of a task, as `delay` sends them (positionally)."""
    if name.endswith("verify_batch"):
        return list(args[0])
    return [(args[0], args[1] if len(args) > 1 else None)]


INTERRUPT = (SoftTimeLimitExceeded,)
"""What ends a task's turn inside a check: the check is handed on, not decided."""

RELIABLY = {
    "base": Checks,
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (DatabaseError, ConnectionError),
    "retry_backoff": True,
    "retry_backoff_max": 60,
    "max_retries": 10,
}


@shared_task(**RELIABLY)
def verify_solution(solution_id: int, checked: str | None = None) -> str | None:
    """Decide one solution's verdict for the fingerprint `checked` (None: whatever is pending)."""
    run = Slice.of_task(interrupt=INTERRUPT)
    return verdict_decide(solution_id=solution_id, checked=checked, run=run)


@shared_task(**RELIABLY)
def verify_batch(checks: list[tuple[int, str]], level: int = 0) -> int:
    """Decide many checks (solution id, fingerprint) together, for one slice of the worker's
    time; what the slice does not reach goes on at the next level. Returns how many were
    written."""
    run = Slice.of_task(level, interrupt=INTERRUPT)
    return len(verdicts_decide(checks=[(sid, checked) for sid, checked in checks], run=run))


@shared_task(**(RELIABLY | {"base": Task}))
def decide_claims(fingerprints: list[str], level: int = 0) -> int:
    """Decide the claims and properties kept under these fingerprints, for one slice of the
    worker's time (the rest goes on at the next level). Returns how many were written."""
    return claims_decide(fingerprints, Slice.of_task(level, interrupt=INTERRUPT))


@shared_task
def sweep_pending_verdicts() -> int:
    """Re-enqueue verdicts, and claims, whose task was lost (broker down at save, worker
    killed)."""
    older_than = timedelta(seconds=settings.VERIFY_SWEEP_AFTER_SECONDS)
    return verdicts_sweep(older_than=older_than) + claims_sweep(older_than=older_than)


@shared_task
def deliver_webhook(delivery_id: int) -> bool:
    """Put a webhook delivery on its endpoint's line in this worker, which attempts it and
    sends the retry after a failure's backoff (`sweep_webhooks` finds one whose attempt was
    lost). Whether it joined a line."""
    return webhook_deliver_apart(delivery_id=delivery_id)


@shared_task
def sweep_webhooks() -> int:
    """Send again webhook deliveries that are due but whose task was lost."""
    return webhooks_sweep()


# Chromium is stopped at PDF_PRINT_SECONDS; the task's own limits only catch what is left.
PRINT_LIMITS = {
    "soft_time_limit": settings.PDF_PRINT_SECONDS + 30,
    "time_limit": settings.PDF_PRINT_SECONDS + 60,
}


@shared_task(
    **PRINT_LIMITS,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(DatabaseError, ConnectionError),
    retry_backoff=True,
    max_retries=10,
)
def print_pdf(key: str) -> str:
    """Print the PDF asked for under `key` (a release, or a book's edition); a failed print is
    recorded, not retried. Returns its state."""
    return pdf_print(key, pdf_page)


@shared_task
def sweep_pdfs() -> int:
    """Ask for the PDFs readers should have and no task is making."""
    return pdfs_sweep()


@shared_task
def publish_due_chapters() -> list[str]:
    """Run the scheduled publishes whose time has come (the beat sends it); what each did."""
    return [
        f"{run.code}: {run.publication.message}"
        if run.publication
        else f"{run.code}: refused: {'; '.join(run.reasons)}"
        for run in due_publishes_run()
    ]
