"""Engine 1.4.3 refuses an answer below float64's normal range: migrating asks again for the
verdicts of such answers, whichever engine decided them, and no others."""

from curriculum.models import Chapter, Solution, Verdict
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
