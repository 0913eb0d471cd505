"""Engine 1.4.4 refuses a value below float64's normal range and computes GELU without
cancelling: migrating asks again for the verdicts whose stored engine value holds a 0 or such a
number, and those of problems with a GELU, and no others."""

from curriculum.models import Chapter, ClaimVerdict, Problem, Verdict
from tests.conftest import verify_now
from tests.curriculum.migrations.again import UNDECIDED, migrated_from


def test_the_verdicts_of_values_holding_a_zero_or_a_subnormal_are_asked_again_only(seeded):
    for chapter in Chapter.objects.all():
        verify_now(chapter)
    decided = Verdict.objects.exclude(status="pending").order_by("pk")
    ids = list(decided.values_list("pk", flat=True))
    flushed, tiny, named, gelu = ids[0], ids[1], ids[-1], ids[2]
    Verdict.objects.filter(pk=flushed).update(engine_value=[[0.0, 1.0]])
    Verdict.objects.filter(pk=tiny).update(engine_value=[[2.0322308024e-313, 1.0]])
    Verdict.objects.filter(pk=named).update(engine_value={"out": [[1.0, 0]], "n": 3})
    Problem.objects.filter(solution__verdict=gelu).update(operation="feed_forward")
    plain = Verdict.objects.exclude(pk__in=(flushed, tiny, named, gelu))
    plain.update(engine_value=[[0.25, -1e-300], [3, 1e300]])
    kept = set(plain.values_list("pk", "status", "decided_at", "engine_version"))
    assert kept and not Verdict.objects.filter(status="pending").exists()

    migrated_from("0041_schedule_unreleased")

    again = Verdict.objects.filter(pk__in=(flushed, tiny, named, gelu))
    assert set(again.values_list("status", "decided_at", "engine_version")) == UNDECIDED
    assert set(plain.values_list("pk", "status", "decided_at", "engine_version")) == kept


def test_claims_refused_for_an_underflowing_step_are_asked_again_only(seeded):
    for chapter in Chapter.objects.all():
        verify_now(chapter)
    claims = ClaimVerdict.objects.exclude(status="pending").order_by("pk")
    step, other = claims[0], claims[1]
    said = "rms_norm(...): 'rms_norm(x=[1e151])' underflows: a value in it falls below 2.23e-308"
    ClaimVerdict.objects.filter(pk=step.pk).update(status="error", message=said)
    ClaimVerdict.objects.filter(pk=other.pk).update(status="error", message="not finite")
    kept = set(claims.exclude(pk=step.pk).values_list("pk", "status", "decided_at"))

    migrated_from("0041_schedule_unreleased")

    again = ClaimVerdict.objects.filter(pk=step.pk)
    assert set(again.values_list("status", "decided_at", "engine_version")) == UNDECIDED
    assert set(claims.exclude(pk=step.pk).values_list("pk", "status", "decided_at")) == kept
