from django.db import migrations


def entries_drop(apps, schema_editor):
    """Entries headed by a problem's variant (an author's slug): dropped, they are made again
    after migrate (`search_index_sync`), headed as readers name problems ("Exercise 3")."""
    apps.get_model("curriculum", "SearchEntry").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("curriculum", "0029_review"),
    ]

    operations = [
        migrations.RunPython(entries_drop, migrations.RunPython.noop),
    ]
