from django.db import migrations, models

from curriculum.domain.tolerances import MAX_RTOL, MIN_DIGITS, atol_bound

HELP = (
    "Significant figures the answer must agree with the engine's value to (3 to 15). "
    "Empty: compare with rtol and atol instead."
)


def narrow_and_ask_again(apps, schema_editor):
    """Tolerances looser than three significant figures are narrowed to the bound, and every
    decided verdict goes back to pending: the comparison itself changed (exact zeros, counts,
    the floor), so none stands until the worker decides it again. As "asking again" does, a
    row keeps the fingerprint it holds and its requested_at (the sweep sends it on its next
    run); the worker checks the content it finds and records that content's fingerprint."""
    Problem = apps.get_model("curriculum", "Problem")
    Verdict = apps.get_model("curriculum", "Verdict")
    Problem.objects.filter(digits__lt=MIN_DIGITS).update(digits=MIN_DIGITS)
    Problem.objects.filter(rtol__gt=MAX_RTOL).update(rtol=MAX_RTOL)  # the CHECK holds every row
    solved = Problem.objects.filter(digits__isnull=True, solution__isnull=False)
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
    if schema_editor.connection.vendor == "postgresql":  # check the updated rows' foreign keys
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # now, or the CHECKs below
        schema_editor.execute("SET CONSTRAINTS ALL DEFERRED")  # meet "pending trigger events"


class Migration(migrations.Migration):
    dependencies = [
        ("curriculum", "0010_problem_indexes_the_constraint_serves"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="problem", name="rtol_bounded"),
        migrations.RemoveConstraint(model_name="problem", name="digits_in_range"),
        migrations.RunPython(narrow_and_ask_again, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="problem",
            name="digits",
            field=models.PositiveSmallIntegerField(
                blank=True, default=6, help_text=HELP, null=True
            ),
        ),
        migrations.AddConstraint(
            model_name="problem",
            constraint=models.CheckConstraint(
                condition=models.Q(("digits__isnull", True))
                | models.Q(("digits__gte", 3), ("digits__lte", 15)),
                name="digits_in_range",
            ),
        ),
        migrations.AddConstraint(
            model_name="problem",
            constraint=models.CheckConstraint(
                condition=models.Q(("rtol__lte", 0.0005)), name="rtol_bounded"
            ),
        ),
    ]
