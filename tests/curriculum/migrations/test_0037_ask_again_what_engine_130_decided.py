"""What engine 1.3.0 decided is decided again by 1.4, which screens whole numbers for
float64's own roundings too; what 1.4 decided stands."""

from curriculum.models import Chapter, ClaimVerdict, Verdict
from tests.conftest import verify_now
from tests.curriculum.migrations.again import UNDECIDED, migrated_from


def test_the_migration_asks_again_for_what_the_old_engine_decided_only(seeded):
    for chapter in Chapter.objects.all():
        verify_now(chapter)
    decided = Verdict.objects.exclude(status="pending").order_by("pk")
    ids = list(decided.values_list("pk", flat=True))
    old, new = ids[::2], ids[1::2]
    assert old and new and not Verdict.objects.filter(status="pending").exists()
    Verdict.objects.filter(pk__in=old).update(engine_version="1.3.0")
    claims = ClaimVerdict.objects.exclude(status="pending").order_by("pk")
    old_claims = list(claims.values_list("pk", flat=True)[::2])
    assert old_claims and claims.count() > len(old_claims)
    ClaimVerdict.objects.filter(pk__in=old_claims).update(engine_version="1.3.0")
    asked = dict(decided.values_list("pk", "requested_at"))
    before = dict(decided.values_list("pk", "decided_status"))
    kept = set(Verdict.objects.filter(pk__in=new).values_list("pk", "status", "decided_at"))

    migrated_from("0036_ask_again_under_extended_precision")

    again = Verdict.objects.filter(pk__in=old)
    assert set(again.values_list("status", "decided_at", "engine_version")) == UNDECIDED
    assert set(Verdict.objects.filter(pk__in=new).values_list("pk", "status", "decided_at")) == kept
    assert dict(Verdict.objects.filter(pk__in=ids).values_list("pk", "decided_status")) == before
    assert dict(Verdict.objects.filter(pk__in=ids).values_list("pk", "requested_at")) == asked
    claimed = ClaimVerdict.objects.filter(pk__in=old_claims)
    assert set(claimed.values_list("status", "decided_at", "engine_version")) == UNDECIDED
    assert not ClaimVerdict.objects.exclude(pk__in=old_claims).filter(status="pending").exists()
