from django.db import migrations, models

HELP = (
    "Significant figures the answer must agree with the engine's value to (1 to 15). "
    "Empty: compare with rtol and atol instead."
)


class Migration(migrations.Migration):
    """Problems written before the digits mode keep the rtol/atol they were verified with (the
    column is added empty); only new problems default to the digits a reader page shows."""

    dependencies = [
        ("curriculum", "0003_figure_svg_help"),
    ]

    operations = [
        migrations.AddField(
            model_name="problem",
            name="digits",
            field=models.PositiveSmallIntegerField(blank=True, null=True, help_text=HELP),
        ),
        migrations.AlterField(
            model_name="problem",
            name="digits",
            field=models.PositiveSmallIntegerField(
                blank=True, default=6, help_text=HELP, null=True
            ),
        ),
        migrations.AddConstraint(
            model_name="problem",
            constraint=models.CheckConstraint(
                condition=models.Q(("digits__isnull", True))
                | models.Q(("digits__gte", 1), ("digits__lte", 15)),
                name="digits_in_range",
            ),
        ),
    ]
