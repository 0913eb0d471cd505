"""first_steps: on a database with no staff account yet (a new production one: `make serve`
loads no seed), say how to make the first admin and load content; silent otherwise."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

FIRST_STEPS = """\
This database has no staff account yet. Make the first admin (a superuser, who may publish):
  .venv/bin/python manage.py createsuperuser
Load content (books and chapters; each file is checked whole, a bad one writes nothing):
  .venv/bin/python manage.py import_chapter content/books.yaml content/*/*.yaml
Then publish each chapter that passes the gate, as that admin (recorded on the release):
  .venv/bin/python manage.py publish_chapter II.3 --user ADMIN_NAME
or sign in to /admin/ and press Publish on the chapter's page."""


class Command(BaseCommand):
    help = "Say how to make the first admin and load content, while no staff account exists."

    def handle(self, *args, **options):
        if not get_user_model().objects.filter(is_staff=True, is_active=True).exists():
            self.stdout.write(FIRST_STEPS)
