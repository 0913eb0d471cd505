from django.db import migrations


def ask_again(apps, schema_editor):
    """Float noise became stricter (engine 1.2.3): an entry is noise only if moving the inputs
    four times as far moves it four times as far, so a value its inputs' move swamps is a
    number to answer, and one moved past the precision of the inputs' smallest number is an
    error (float64 cannot tell it from 0). Under the old rule such values were taken as 0
    within their move, and a wrong answer could be verified: every verified verdict goes back to pending, keeping its
    fingerprint and requested_at, so the sweep sends it on its next run and the worker decides
    it again (a mismatch or an error stands: the new rule only narrows what is accepted);
    decided_status keeps the last decision (a changed one is a `verdict.changed` webhook)."""
    Verdict = apps.get_model("curriculum", "Verdict")
    Verdict.objects.filter(status="verified").update(
        status="pending",
        decided_at=None,
        engine_version="",
        message="",
        engine_value=None,
        attempts=0,
        max_abs_error=None,
        max_rel_error=None,
        duration_ms=None,
        warnings=[],
    )


class Migration(migrations.Migration):
    dependencies = [
        ("curriculum", "0034_ask_again_counts_and_properties"),
    ]

    operations = [migrations.RunPython(ask_again, migrations.RunPython.noop)]
