from django.db import migrations, models

HELP = (
    "Significant figures the answer must agree with the engine's value to (1 to 15). "
    "Empty: compare with rtol and atol instead."
)


class Migration(migrations.Migration):
    """Problems written before the digits mode keep the rtol/atol they were verified with (the
    column is added empty); only new problems default to the digits a reader page shows. Kind
    and variant are explained in the seed's words."""

    dependencies = [
        ("curriculum", "0004_ascii_codes_bounded_tolerance"),
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
        migrations.AlterField(
            model_name="problem",
            name="kind",
            field=models.CharField(
                choices=[("worked", "worked problem"), ("exercise", "exercise")],
                help_text="A worked problem is solved step by step in the text; an exercise is "
                "left to the reader. The level sets how many of each the chapter owes.",
                max_length=10,
            ),
        ),
        migrations.AlterField(
            model_name="problem",
            name="variant",
            field=models.SlugField(
                help_text="The problem's type, such as mha-output. The level counts the distinct "
                "variants among the worked problems: five worked problems of two types are two "
                "variants.",
                max_length=80,
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
