from django.db import migrations

PENDING = {"status": "pending", "decided_at": None, "engine_version": "", "message": ""}


def ask_again(apps, schema_editor):
    """Engine 1.4.1 refuses numbers below float64's normal range, read or computed (an eps of
    7e-324 reads as 4.9e-324, and 0.8035 was verified for an rms_norm whose value as written is
    0.75; a claim's 1e-200 * 1e-200 * 1e300 * 1e300 was taken for 0), reads a problem's outputs
    in a claim as an answer to the problem is held (float64's value of attention with factors
    of 2^27, a quarter off, was verified), and keys a claim's moves by the server's secret, not
    by seeds anyone could read. Whatever engine 1.4.0 decided, answers and claims, goes back to
    pending (fingerprint, requested_at and decided_status kept: the sweep sends it, and a
    changed decision is a `verdict.changed` webhook)."""
    measured = {"max_abs_error": None, "max_rel_error": None, "duration_ms": None, "warnings": []}
    for model, cleared in (("ClaimVerdict", {}), ("Verdict", measured)):
        rows = apps.get_model("curriculum", model).objects.filter(engine_version="1.4.0")
        rows.update(**PENDING, engine_value=None, attempts=0, **cleared)


class Migration(migrations.Migration):
    dependencies = [
        ("curriculum", "0037_ask_again_what_engine_130_decided"),
    ]

    operations = [migrations.RunPython(ask_again, migrations.RunPython.noop)]
