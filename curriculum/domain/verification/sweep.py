"""The sweep: a check whose task was lost (the broker down at save, a worker killed) is sent
again once its verdict has waited too long."""

from datetime import timedelta

from django.utils import timezone

from curriculum.models import Verdict

from .dispatch import LAST_LEVEL, verdicts_enqueue_now


def verdicts_overdue(*, older_than: timedelta) -> list[tuple[int, str]]:
    """Pending verdicts that have waited too long (their task was lost): (solution, fingerprint)."""
    cutoff = timezone.now() - older_than
    return list(
        Verdict.objects.filter(status=Verdict.Status.PENDING, requested_at__lt=cutoff)
        .order_by("requested_at")
        .values_list("solution_id", "fingerprint")
    )


def verdicts_sweep(*, older_than: timedelta) -> int:
    """Send again every overdue pending check, in batches; returns how many were sent.

    A check whose runs keep dying is sent too: its next run records it as an error. An overdue
    check may only be waiting behind a backlog: the sweep sends at the last level, so what it
    resends never overtakes what others asked for."""
    return verdicts_enqueue_now(checks=verdicts_overdue(older_than=older_than), level=LAST_LEVEL)
