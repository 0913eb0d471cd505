from django.db import migrations, models


class Migration(migrations.Migration):
    """Existing chapters start at revision 1; the search index, tagged with the revision it was
    built from, is rebuilt for them after migrate (apps.py: post_migrate)."""

    dependencies = [("curriculum", "0012_zeros_of_the_problems_scale")]

    operations = [
        migrations.AddField(
            model_name="chapter",
            name="revision",
            field=models.PositiveBigIntegerField(default=1, editable=False),
        ),
    ]
