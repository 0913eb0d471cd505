from django.db import migrations


def ask_again(apps, schema_editor):
    """Float noise is decided in extended precision (engine 1.3.0): an entry in doubt is 0 only
    where a longdouble run finds it within its inputs' own rounding of 0, and a number float64
    computes wrong in its sixth figure is an error. The new rule moves both ways (exact zeros
    through identical rows, refused before, are verified; small values that large terms cancel
    to, taken for 0 before, are numbers), so every decided verdict goes back to pending, keeping
    its fingerprint and requested_at: the sweep sends it on its next run and the worker decides
    it again; decided_status keeps the last decision (a changed one is a `verdict.changed`
    webhook). Claims and properties too: where float64's rounding could decide one, it is now
    an error ({{ 0 = (1e20 + 1000) - 1e20 }} was verified)."""
    Verdict = apps.get_model("curriculum", "Verdict")
    ClaimVerdict = apps.get_model("curriculum", "ClaimVerdict")
    undecided = {"status": "pending", "decided_at": None, "engine_version": "", "message": ""}
    undecided |= {"engine_value": None, "attempts": 0}
    ClaimVerdict.objects.exclude(status="pending").update(**undecided)
    Verdict.objects.exclude(status="pending").update(
        **undecided, max_abs_error=None, max_rel_error=None, duration_ms=None, warnings=[]
    )


class Migration(migrations.Migration):
    dependencies = [
        ("curriculum", "0035_ask_again_verified_under_the_old_noise_rule"),
    ]

    operations = [migrations.RunPython(ask_again, migrations.RunPython.noop)]
