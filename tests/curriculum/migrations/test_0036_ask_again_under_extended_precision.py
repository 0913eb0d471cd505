"""Verdicts decided under the moved-runs noise rule are decided again under extended precision,
whatever they said: the new rule moves both ways."""

from curriculum.models import Chapter, ClaimVerdict, Verdict
from tests.conftest import verify_now
from tests.curriculum.migrations.again import UNDECIDED, migrated_from


def test_the_migration_asks_again_for_every_decided_verdict(seeded):
    for chapter in Chapter.objects.all():
        verify_now(chapter)
    decided = Verdict.objects.exclude(status="pending")
    assert decided.exists() and not Verdict.objects.filter(status="pending").exists()
    claims = list(ClaimVerdict.objects.exclude(status="pending").values_list("pk", flat=True))
    assert claims
    mismatch = decided.first()
    Verdict.objects.filter(pk=mismatch.pk).update(status="mismatch", decided_status="mismatch")
    ids = list(decided.values_list("pk", flat=True))
    asked = {pk: requested for pk, requested in decided.values_list("pk", "requested_at")}
    before = dict(Verdict.objects.filter(pk__in=ids).values_list("pk", "decided_status"))

    migrated_from("0035_ask_again_verified_under_the_old_noise_rule")

    again = Verdict.objects.filter(pk__in=ids)
    assert set(again.values_list("status", "decided_at", "engine_version")) == UNDECIDED
    assert dict(again.values_list("pk", "decided_status")) == before  # kept for the webhook
    assert dict(again.values_list("pk", "requested_at")) == asked  # the sweep sends them
    claimed = ClaimVerdict.objects.filter(pk__in=claims)
    assert set(claimed.values_list("status", "decided_at", "engine_version")) == UNDECIDED
