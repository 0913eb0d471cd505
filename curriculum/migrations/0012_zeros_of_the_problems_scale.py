from django.db import migrations

from curriculum.domain.tolerances import atol_bound


def narrow_and_ask_again(apps, schema_editor):
    """An entry is now taken as 0 only where the engine finds it float noise (its inputs moved,
    it moves as much as it measures), not wherever it is below 1e-9 of the output's largest
    entry or 1e-12: an answer of 0 for 999 beside 1e12 no longer stands. Answers of zeros alone take atol 0. Every decided verdict goes back to
    pending, as 0011 did: none stands until the worker decides it again."""
    Problem = apps.get_model("curriculum", "Problem")
    Verdict = apps.get_model("curriculum", "Verdict")
    solved = Problem.objects.filter(digits__isnull=True, solution__isnull=False, atol__gt=0)
    for problem in solved.select_related("solution").iterator():
        bound = atol_bound(problem.solution.answer, problem.rtol)
        if bound is not None and problem.atol > bound:
            Problem.objects.filter(pk=problem.pk).update(atol=bound)
    Verdict.objects.exclude(status="pending").update(
        status="pending",
        decided_at=None,
        max_abs_error=None,
        max_rel_error=None,
        engine_value=None,
        engine_version="",
        duration_ms=None,
        message="",
        attempts=0,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("curriculum", "0011_tolerances_narrowed"),
    ]

    operations = [migrations.RunPython(narrow_and_ask_again, migrations.RunPython.noop)]
