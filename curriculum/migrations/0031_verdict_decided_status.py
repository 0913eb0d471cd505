from django.db import migrations, models
from django.db.models import F


def decided_kept(apps, schema_editor):
    """A decided verdict's status is the one its decision wrote (a pending one's is unknown)."""
    verdicts = apps.get_model("curriculum", "Verdict").objects
    verdicts.exclude(status="pending").update(decided_status=F("status"))


class Migration(migrations.Migration):
    dependencies = [
        ("curriculum", "0030_search_problem_labels"),
    ]

    operations = [
        migrations.AddField(
            model_name="verdict",
            name="decided_status",
            field=models.CharField(
                blank=True,
                db_default="",
                choices=[
                    ("pending", "pending"),
                    ("verified", "verified"),
                    ("mismatch", "mismatch"),
                    ("error", "error"),
                ],
                help_text="The status the last decision wrote, kept while a new check is "
                "pending: a decision that writes another one is a `verdict.changed` webhook.",
                max_length=10,
            ),
        ),
        migrations.RunPython(decided_kept, migrations.RunPython.noop),
    ]
