"""Claims and properties reach the worker as answers do: every chapter write that commits asks
for the verdicts its document lacks (`chapters_revised`), the worker decides them in batches
with compare-and-set, and the sweep resends what a lost task left pending."""

from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

import attention
from curriculum.models import ClaimVerdict

from ..revisions import chapters_moved
from ..selectors import ChapterDocuments
from ..verification.dispatch import LAST_LEVEL, Slice, task_send
from .decide import outcome
from .found import Found, found_in

DECIDE_CLAIMS = "curriculum.tasks.decide_claims"
Status = ClaimVerdict.Status


def claims_enqueue_now(fingerprints: list[str], *, level: int = 0) -> int:
    """VERIFY_BATCH_SIZE to a task, the k-th batch at `level` + k; how many were sent."""
    size, sent = max(settings.VERIFY_BATCH_SIZE, 1), 0
    for number, start in enumerate(range(0, len(fingerprints), size)):
        batch = fingerprints[start : start + size]
        at = min(level + number, LAST_LEVEL)
        sent += len(batch) * task_send(
            DECIDE_CLAIMS, (batch,), {"level": at}, level=at, what=f"{len(batch)} claims"
        )
    return sent


def claims_ask(found: Iterable[tuple[int, Found]]) -> list[str]:
    """Rows for the claims no verdict is kept for yet, each linked to the chapters stating it;
    returns the pending ones (new or not)."""
    wanted = {item.fingerprint: item for _, item in found}
    if not wanted:
        return []
    now = timezone.now()
    ClaimVerdict.objects.bulk_create(
        [
            ClaimVerdict(fingerprint=fp, kind=item.kind, spec=item.spec, requested_at=now)
            for fp, item in wanted.items()
        ],
        ignore_conflicts=True,
    )
    rows = dict(
        ClaimVerdict.objects.filter(fingerprint__in=wanted).values_list("fingerprint", "pk")
    )
    Through = ClaimVerdict.chapters.through
    Through.objects.bulk_create(
        {
            (chapter_id, rows[item.fingerprint]): Through(
                chapter_id=chapter_id, claimverdict_id=rows[item.fingerprint]
            )
            for chapter_id, item in found
        }.values(),
        ignore_conflicts=True,
    )
    return list(
        ClaimVerdict.objects.filter(fingerprint__in=wanted, status=Status.PENDING).values_list(
            "fingerprint", flat=True
        )
    )


def _found(documents: ChapterDocuments) -> list[tuple[int, Found]]:
    return [(chapter.pk, item) for chapter, document in documents() for item in found_in(document)]


def claims_request(chapter_ids: Iterable[int], documents: ChapterDocuments | None = None) -> int:
    """After a chapter write commits: ask for every verdict its claims lack; how many were sent.
    `documents`: the chapters', when others read them too (`revised_documents`)."""
    pending = claims_ask(_found(ChapterDocuments(chapter_ids) if documents is None else documents))
    return claims_enqueue_now(pending) if pending else 0


def claims_decide_now(chapter_ids: Iterable[int]) -> int:
    """Decide in this process every verdict these chapters' claims lack, as the worker would (a
    dry run, whose rollback discards them; tests); how many were written."""
    return claims_decide(claims_ask(_found(ChapterDocuments(chapter_ids))), Slice())


def claims_decide(fingerprints: list[str], run: Slice) -> int:
    """Decide the pending ones among `fingerprints`, for one slice of the worker's time; what
    the slice does not reach goes on at the next level. Returns how many were written."""
    rows = list(ClaimVerdict.objects.filter(fingerprint__in=fingerprints, status=Status.PENDING))
    written: list[int] = []
    for index, row in enumerate(rows):
        if not run.open():
            claims_enqueue_now([r.fingerprint for r in rows[index:]], level=run.level + 1)
            break
        run.started += 1
        ClaimVerdict.objects.filter(pk=row.pk).update(attempts=F("attempts") + 1)
        if row.attempts >= settings.VERIFY_MAX_ATTEMPTS:  # its runs kept dying
            decided = {"status": Status.ERROR, "message": "the engine never finished it"}
        else:
            found = outcome(row.kind, row.spec, run.interrupt)
            decided = {
                "status": found.status,
                "message": found.message,
                "engine_value": found.value,
            }
        if ClaimVerdict.objects.filter(pk=row.pk, status=Status.PENDING).update(
            **decided, decided_at=timezone.now(), engine_version=attention.ENGINE_VERSION
        ):
            written.append(row.pk)
    if written:  # the pages stating them now show what the engine said
        stating = ClaimVerdict.chapters.through.objects.filter(claimverdict_id__in=written)
        chapters_moved(set(stating.values_list("chapter_id", flat=True)), searched=False)
    return len(written)


def claims_sweep(*, older_than: timedelta) -> int:
    """Send again every claim left pending too long, behind everything still queued."""
    cutoff = timezone.now() - older_than
    overdue = ClaimVerdict.objects.filter(status=Status.PENDING, requested_at__lt=cutoff)
    return claims_enqueue_now(
        list(overdue.order_by("requested_at").values_list("fingerprint", flat=True)),
        level=LAST_LEVEL,
    )
