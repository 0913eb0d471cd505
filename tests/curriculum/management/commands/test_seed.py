"""`manage.py seed` (run by `make run`) loads only what is missing: an author's edit survives."""

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from curriculum.celery import app
from curriculum.domain.editing import ChapterSave, ProblemSave
from curriculum.management.commands import seed
from curriculum.models import Book, Chapter, Problem, Release, Verdict
from tests.conftest import verify_now

KEPT = "kept as it is in the database (content/ is applied only to what is missing)"


@pytest.fixture(autouse=True)
def password_file(monkeypatch, tmp_path):
    """The admin password goes to a scratch file, not the checkout's var/."""
    monkeypatch.setattr(seed, "PASSWORD_FILE", tmp_path / "var" / "admin-password")


def test_a_second_seed_keeps_every_edit_and_says_what_it_kept(db, capsys):
    call_command("seed")
    capsys.readouterr()
    chapter = Chapter.objects.get(code="II.3")
    verify_now(chapter)  # no worker here: the second seed may publish it
    chapter.thesis = "An author's better claim."
    ChapterSave(chapter=chapter).execute()
    added = Problem.objects.get(chapter=chapter, key="p1")
    added.pk, added.key, added.chapter = None, "p1", Chapter.objects.get(code="II.4")
    ProblemSave(problem=added).execute()
    book = Book.objects.get(numeral="II")
    book.title = "Renamed by an editor"
    book.save()

    call_command("seed")
    again = capsys.readouterr().out

    chapter.refresh_from_db()
    assert chapter.thesis == "An author's better claim."
    assert Problem.objects.filter(chapter__code="II.4", key="p1").exists()
    assert Book.objects.get(numeral="II").title == "Renamed by an editor"
    assert f"II.3: {KEPT}" in again and f"0.LA.01: {KEPT}" in again
    assert f"Book II: {KEPT}" in again
    assert "II.3: published as release 1" in again
    assert Release.objects.get(chapter=chapter).snapshot["thesis"] == "An author's better claim."


def test_a_chapter_missing_from_the_database_is_imported_again(db, capsys):
    call_command("seed")
    capsys.readouterr()
    Chapter.objects.get(code="II.4").delete()
    call_command("seed")
    out = capsys.readouterr().out
    assert "imported II.4" in out and f"II.4: {KEPT}" not in out
    assert Chapter.objects.filter(code="II.4").exists()


@pytest.fixture
def no_worker(settings):
    """The embedded default: no broker, tasks run in the process that sends them."""
    before = app.conf.task_always_eager  # read first: Celery reads settings once, on first use
    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def test_without_a_worker_seed_decides_the_verdicts_a_migration_asked_again(
    transactional_db, no_worker
):
    """Committed rows, as `make run` has them: a task run in-process closes no transaction."""
    call_command("seed")
    Verdict.objects.update(status="pending")  # as 0011 and 0012 leave them
    call_command("seed")
    assert set(Verdict.objects.values_list("status", flat=True)) == {"verified"}


def test_a_second_seed_keeps_the_admin_password_and_prints_none(db, client, capsys):
    """`make run` twice used to reset the password (and sign everyone out)."""
    call_command("seed")
    first = capsys.readouterr().out
    password = seed.PASSWORD_FILE.read_text().strip()
    assert f"Admin login: admin / {password}" in first
    admin = User.objects.get(username="admin")
    admin.set_password("changed-in-admin-9")
    admin.save()
    client.force_login(admin)

    call_command("seed")
    again = capsys.readouterr().out
    assert "Admin login: admin (its password is kept as last set)" in again
    assert password not in again
    assert User.objects.get(username="admin").check_password("changed-in-admin-9")
    assert client.get("/admin/").status_code == 200  # still signed in


def test_the_seed_records_itself_on_the_releases_it_makes(db):
    call_command("seed")
    verify_now(Chapter.objects.get(code="II.3"))
    call_command("seed")
    assert Release.objects.filter(chapter__code="II.3").exists()
    assert set(Release.objects.values_list("made_by", flat=True)) == {"system (seed)"}
