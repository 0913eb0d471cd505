"""Celery tasks: thin callers of the verification service; retries live here."""

from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError

from curriculum.domain.verification import verdict_decide, verdict_enqueue_now, verdicts_overdue


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(DatabaseError, ConnectionError),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=10,
)
def verify_solution(solution_id: int) -> str | None:
    return verdict_decide(solution_id=solution_id)


@shared_task
def sweep_pending_verdicts() -> int:
    """Re-enqueue verdicts whose task was lost (broker down at save, worker killed)."""
    overdue = verdicts_overdue(older_than=timedelta(seconds=settings.VERIFY_SWEEP_AFTER_SECONDS))
    for solution_id in overdue:
        verdict_enqueue_now(solution_id=solution_id)
    return len(overdue)
