"""A release's list fields are its overview (a chapter's summary is its prose); a search entry
is tagged with the chapter revision it was built from, a number. The index is rebuilt after
migrate (apps.py), so the entries are dropped here rather than converted, both ways."""

from django.db import migrations, models


def entries_drop(apps, schema_editor):
    apps.get_model("curriculum", "SearchEntry").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("curriculum", "0014_solution_fingerprint")]

    operations = [
        migrations.RenameField("release", "summary", "overview"),
        migrations.RemoveIndex("searchentry", "search_chapter_version"),
        migrations.RemoveField("searchentry", "version"),
        migrations.RunPython(entries_drop, entries_drop),  # either way, post_migrate rebuilds
        migrations.AddField(
            "searchentry", "revision", models.PositiveBigIntegerField(default=0), preserve_default=False
        ),
        migrations.AddIndex(
            "searchentry",
            models.Index(fields=["chapter", "revision"], name="search_chapter_revision"),
        ),
    ]
