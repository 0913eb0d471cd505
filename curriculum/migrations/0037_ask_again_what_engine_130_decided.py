from django.db import migrations

PENDING = {"status": "pending", "decided_at": None, "engine_version": "", "message": ""}


def ask_again(apps, schema_editor):
    """Engine 1.4.0 holds answers against the value computed again in extended precision, checks
    that run by moving every number past longdouble's grid, and refuses a verdict that reading
    and rounding, not the answer, would decide at the tolerance asked: with q = [[2^30, 1]],
    k = [[2^30, 1], [2^30, 0]] the product 2^30 * (2^30 + 1) rounds to 2^60 in float64, and
    float64's value, a quarter off, was verified; a claim's engine calls are held alike, and a
    position's base is at least 1. Whatever engine 1.3.0 decided goes back to pending
    (fingerprint, requested_at and decided_status kept: the sweep sends it, and a changed
    decision is a `verdict.changed` webhook); what 1.4.0 decided stands."""
    measured = {"max_abs_error": None, "max_rel_error": None, "duration_ms": None, "warnings": []}
    for model, cleared in (("ClaimVerdict", {}), ("Verdict", measured)):
        rows = apps.get_model("curriculum", model).objects.filter(engine_version="1.3.0")
        rows.update(**PENDING, engine_value=None, attempts=0, **cleared)


class Migration(migrations.Migration):
    dependencies = [
        ("curriculum", "0036_ask_again_under_extended_precision"),
    ]

    operations = [migrations.RunPython(ask_again, migrations.RunPython.noop)]
