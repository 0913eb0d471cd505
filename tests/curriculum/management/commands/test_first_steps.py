"""A new production database (`make serve` loads no seed) says how to make the first admin and
load content; once there is a staff account it says nothing."""

from django.contrib.auth.models import User
from django.core.management import call_command


def test_a_database_without_staff_says_how_to_begin(db, capsys):
    call_command("first_steps")
    out = capsys.readouterr().out
    assert "This database has no staff account yet" in out
    assert "manage.py createsuperuser" in out
    assert "manage.py import_chapter content/books.yaml content/*/*.yaml" in out


def test_a_database_with_an_admin_says_nothing(db, capsys):
    User.objects.create_superuser("root", "", "a-long-password-9")
    call_command("first_steps")
    assert capsys.readouterr().out == ""
