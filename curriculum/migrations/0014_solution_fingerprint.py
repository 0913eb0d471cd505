from django.db import migrations, models

from curriculum.domain.verification.fingerprints import FINGERPRINTED, fingerprint_of


def fingerprints_fill(apps, schema_editor):
    """Each solution's fingerprint as `fingerprint()` gives it, so existing verdicts still count."""
    Solution = apps.get_model("curriculum", "Solution")
    rows = Solution.objects.values("pk", *FINGERPRINTED).iterator(chunk_size=2000)
    changed = [Solution(pk=row["pk"], fingerprint=fingerprint_of(row)) for row in rows]
    Solution.objects.bulk_update(changed, ["fingerprint"], batch_size=2000)


class Migration(migrations.Migration):
    dependencies = [("curriculum", "0013_chapter_revision")]

    operations = [
        migrations.AddField(
            model_name="solution",
            name="fingerprint",
            field=models.CharField(
                default="",
                editable=False,
                help_text=(
                    "Of what the problem and this answer now say: a verdict counts for it only."
                ),
                max_length=64,
            ),
            preserve_default=False,
        ),
        migrations.RunPython(fingerprints_fill, migrations.RunPython.noop),
    ]
