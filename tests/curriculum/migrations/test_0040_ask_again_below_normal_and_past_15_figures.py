"""Engine 1.4.3 refuses an answer below float64's normal range, and holds a claim typed past
15 figures to float64's value: migrating asks again for the verdicts of such answers and
claims, whichever engine decided them, and no others."""

import re

from curriculum.domain.claims.pattern import NUMBER, figures_of
from curriculum.models import Chapter, ClaimVerdict, Solution, Verdict
from tests.conftest import verify_now
from tests.curriculum.migrations.again import UNDECIDED, migrated_from


def test_the_verdicts_of_answers_below_normal_range_are_asked_again_only(seeded):
    for chapter in Chapter.objects.all():
        verify_now(chapter)
    decided = Verdict.objects.exclude(status="pending").order_by("pk")
    ids = list(decided.values_list("solution_id", flat=True))
    tiny, named = ids[0], ids[-1]
    Solution.objects.filter(pk=tiny).update(answer=[0.5, 2.28705e-320])
    Solution.objects.filter(pk=named).update(answer={"out": [[1.0, -5e-324]], "n": 3})
    others = Verdict.objects.exclude(solution_id__in=(tiny, named))
    kept = set(others.values_list("pk", "status", "decided_at", "engine_version"))
    assert kept and not Verdict.objects.filter(status="pending").exists()

    migrated_from("0039_chapter_references")

    again = Verdict.objects.filter(solution_id__in=(tiny, named))
    assert set(again.values_list("status", "decided_at", "engine_version")) == UNDECIDED
    assert set(others.values_list("pk", "status", "decided_at", "engine_version")) == kept


def _past_15(spec: dict) -> bool:
    return any(figures_of(number) > 15 for number in re.findall(NUMBER, spec["typed"]))


def test_verified_claims_typed_past_15_figures_are_asked_again_only(seeded):
    for chapter in Chapter.objects.all():
        verify_now(chapter)
    claims = ClaimVerdict.objects.filter(kind="claim", status="verified").order_by("pk")
    long, short = claims[0], claims[1]
    ClaimVerdict.objects.filter(pk=long.pk).update(spec=long.spec | {"typed": "1.414213562373099"})
    ClaimVerdict.objects.filter(pk=short.pk).update(spec=short.spec | {"typed": "1.41421356237310"})
    within = [c.pk for c in ClaimVerdict.objects.all() if c.kind != "claim" or not _past_15(c.spec)]
    kept = set(ClaimVerdict.objects.filter(pk__in=within).values_list("pk", "status", "decided_at"))
    assert short.pk in within and long.pk not in within  # the seed's own 16-figure claim too

    migrated_from("0039_chapter_references")

    again = ClaimVerdict.objects.exclude(pk__in=within)
    assert set(again.values_list("status", "decided_at", "engine_version")) == UNDECIDED
    assert (
        set(ClaimVerdict.objects.filter(pk__in=within).values_list("pk", "status", "decided_at"))
        == kept
    )
