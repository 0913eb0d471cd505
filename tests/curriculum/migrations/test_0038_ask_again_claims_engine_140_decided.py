"""What engine 1.4.0 decided of claims is decided again by 1.4.1, which reads a problem's
outputs in extended precision and keys a claim's moves by the server's secret; answers' verdicts
stand."""

from curriculum.models import Chapter, ClaimVerdict, Verdict
from tests.conftest import verify_now
from tests.curriculum.migrations.again import UNDECIDED, migrated_from


def test_the_migration_asks_again_for_the_claims_the_old_engine_decided_only(seeded):
    for chapter in Chapter.objects.all():
        verify_now(chapter)
    claims = ClaimVerdict.objects.exclude(status="pending").order_by("pk")
    ids = list(claims.values_list("pk", flat=True))
    old = ids[::2]
    assert old and len(ids) > len(old)
    ClaimVerdict.objects.filter(pk__in=old).update(engine_version="1.4.0")
    kept = set(ClaimVerdict.objects.exclude(pk__in=old).values_list("pk", "status", "decided_at"))
    asked = dict(claims.values_list("pk", "requested_at"))
    Verdict.objects.update(engine_version="1.4.0")
    answers = set(Verdict.objects.values_list("pk", "status", "decided_at", "engine_version"))
    assert answers and {status for _, status, _, _ in answers} != {"pending"}

    migrated_from("0037_ask_again_what_engine_130_decided")

    again = ClaimVerdict.objects.filter(pk__in=old)
    assert set(again.values_list("status", "decided_at", "engine_version")) == UNDECIDED
    assert dict(again.values_list("pk", "requested_at")) == {pk: asked[pk] for pk in old}
    assert (
        set(ClaimVerdict.objects.exclude(pk__in=old).values_list("pk", "status", "decided_at"))
        == kept
    )
    assert (
        set(Verdict.objects.values_list("pk", "status", "decided_at", "engine_version")) == answers
    )
