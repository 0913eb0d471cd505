from django.db import migrations

PENDING = {"status": "pending", "decided_at": None, "engine_version": "", "message": ""}


def ask_again(apps, schema_editor):
    """Engine 1.4.1 reads a problem's outputs in a claim as an answer to the problem is held
    (in extended precision: float64's value of attention with factors of 2^27, a quarter off,
    was verified), and keys a claim's moves by the server's secret, not by seeds anyone could
    read. Whatever claim engine 1.4.0 decided goes back to pending (requested_at and
    decided_status kept: the sweep sends it); answers' verdicts stand, which 1.4.1 decides as
    1.4.0 did."""
    claims = apps.get_model("curriculum", "ClaimVerdict").objects.filter(engine_version="1.4.0")
    claims.update(**PENDING, engine_value=None, attempts=0)


class Migration(migrations.Migration):
    dependencies = [
        ("curriculum", "0037_ask_again_what_engine_130_decided"),
    ]

    operations = [migrations.RunPython(ask_again, migrations.RunPython.noop)]
