from django.db import migrations

import attention


def ask_again(apps, schema_editor):
    """Two comparisons became stricter: a count is compared as the integer written, past 2**53
    too (an answer 500 off a count of 7.9e18 was the same float), and a property whose sides
    are within its tolerance of 0 says nothing. A verdict decided under the old rule goes back
    to pending, keeping its fingerprint and requested_at, so the sweep sends it on its next run
    and the worker decides it again; decided_status keeps the last decision (a changed one is
    a `verdict.changed` webhook)."""
    counting = [name for name, operation in attention.OPERATIONS.items() if operation.counts]
    Verdict = apps.get_model("curriculum", "Verdict")
    ClaimVerdict = apps.get_model("curriculum", "ClaimVerdict")
    undecided = {"status": "pending", "decided_at": None, "engine_version": "", "message": ""}
    undecided |= {"engine_value": None, "attempts": 0}
    Verdict.objects.filter(solution__problem__operation__in=counting).exclude(
        status="pending"
    ).update(
        **undecided, max_abs_error=None, max_rel_error=None, duration_ms=None, warnings=[]
    )
    ClaimVerdict.objects.filter(kind="property").exclude(status="pending").update(**undecided)


class Migration(migrations.Migration):
    dependencies = [
        ("curriculum", "0033_solution_answer_optional"),
    ]

    operations = [migrations.RunPython(ask_again, migrations.RunPython.noop)]
