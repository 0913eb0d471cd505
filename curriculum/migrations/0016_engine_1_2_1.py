from django.db import migrations

CHANGED = ("cross_entropy", "layer_norm")
"""Engine 1.2.1 keeps a confident row's tiny cross-entropy (logits [40, 0] gave exactly 0) and
gives a constant row's layer norm exactly 0 (its rounding read as ±1 with a tiny eps)."""


def ask_again(apps, schema_editor):
    """Their decided verdicts go back to pending: none stands until the worker decides it with
    the engine that computes them right."""
    Verdict = apps.get_model("curriculum", "Verdict")
    Verdict.objects.filter(solution__problem__operation__in=CHANGED).exclude(
        status="pending"
    ).update(
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
    dependencies = [("curriculum", "0015_names_say_what_they_hold")]

    operations = [migrations.RunPython(ask_again, migrations.RunPython.noop)]
