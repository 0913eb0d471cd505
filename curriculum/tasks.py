"""Celery tasks: thin callers of the verification service; retries live here."""

from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError

from curriculum.domain.verification import verdict_decide, verdicts_sweep


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(DatabaseError, ConnectionError),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=10,
)
def verify_solution(solution_id: int, checked: str | None = None) -> str | None:
    """Decide one solution's verdict for the fingerprint `checked` (None: whatever is pending)."""
    return verdict_decide(solution_id=solution_id, checked=checked)


@shared_task
def sweep_pending_verdicts() -> int:
    """Re-enqueue verdicts whose task was lost (broker down at save, worker killed)."""
    return verdicts_sweep(older_than=timedelta(seconds=settings.VERIFY_SWEEP_AFTER_SECONDS))
