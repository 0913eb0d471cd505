import django.db.models.deletion
from django.db import migrations, models


def revisions_move(apps, schema_editor):
    """Each indexed chapter's revision, from its entries to its own row."""
    entries = apps.get_model("curriculum", "SearchEntry").objects.order_by("position")
    SearchChapter = apps.get_model("curriculum", "SearchChapter")
    revisions = dict(entries.values_list("chapter_id", "revision"))  # one per chapter
    SearchChapter.objects.bulk_create(
        SearchChapter(chapter_id=chapter, revision=revision)
        for chapter, revision in revisions.items()
    )


def entries_drop(apps, schema_editor):
    """Back: the entries are dropped (their revision column comes back empty) and made again
    after migrate (`search_index_sync`)."""
    apps.get_model("curriculum", "SearchEntry").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("curriculum", "0031_verdict_decided_status"),
    ]

    operations = [
        migrations.CreateModel(
            name="SearchChapter",
            fields=[
                (
                    "chapter",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="curriculum.chapter",
                    ),
                ),
                ("revision", models.PositiveBigIntegerField()),
            ],
        ),
        migrations.RunPython(revisions_move, migrations.RunPython.noop),
        migrations.RemoveIndex(model_name="searchentry", name="search_chapter_revision"),
        migrations.RemoveField(model_name="searchentry", name="revision"),
        migrations.RunPython(migrations.RunPython.noop, entries_drop),  # back: before the field
    ]
