"""seed: load what the database lacks from content/, publish what passes, ensure a staff login.

Run again, it changes nothing an author did: a chapter or book already stored is kept as it is,
and so is the admin account: its password is set (and printed) only when the seed creates it,
so a password changed in admin stays, and nobody signed in is signed out.
"""

import secrets
import time
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError

from curriculum.domain.chapter_files import ChapterFileError, file_seed, import_order
from curriculum.domain.gate import PublishRefused, chapter_publish
from curriculum.domain.verification import verdicts_sweep
from curriculum.domain.writers import writing
from curriculum.models import Chapter, Verdict

CONTENT = Path(settings.BASE_DIR) / "content"
PASSWORD_FILE = Path(settings.BASE_DIR) / "var" / "admin-password"
ADMIN = "admin"
KEPT = "kept as it is in the database (content/ is applied only to what is missing)"


class Command(BaseCommand):
    help = "Import what is missing from content/ and ensure the admin login; safe to run again."

    def add_arguments(self, parser):
        parser.add_argument(
            "--wait",
            type=float,
            default=0,
            help="seconds to wait for the verifier before publishing",
        )

    def handle(self, *args, wait, **options):
        codes = []
        for file in import_order(sorted(CONTENT.rglob("*.yaml"))):
            try:
                with writing(via="seed"):
                    result = file_seed(text=file.read_text(encoding="utf-8"))
            except ChapterFileError as error:
                raise CommandError(f"{file}:\n" + "\n".join(error.errors)) from error
            if result.label and result.label not in result.kept:
                self.stdout.write(f"{file.relative_to(CONTENT)}: imported {result.label}")
            for label in result.kept:
                self.stdout.write(f"{label}: {KEPT}")
            codes += [result.label] if result.kind == "chapter" else []
        if settings.CELERY_TASK_ALWAYS_EAGER:  # no worker or sweep: what a migration asked
            verdicts_sweep(older_than=timedelta(0))  # again is decided here, in this process
        self._publish_first_releases(codes, wait)
        username, password = self._admin()
        if password is None:
            self.stdout.write(f"Admin login: {username} (its password is kept as last set)")
        else:
            self.stdout.write(self.style.SUCCESS(f"Admin login: {username} / {password}"))

    def _publish_first_releases(self, codes: list[str], wait: float) -> None:
        """Chapters that pass the gate and have never been released get release 1."""
        deadline = time.monotonic() + wait
        pending = Verdict.objects.filter(status=Verdict.Status.PENDING)
        while pending.exists() and time.monotonic() < deadline:
            time.sleep(0.5)
        for chapter in Chapter.objects.filter(code__in=codes, releases__isnull=True):
            try:
                release = chapter_publish(chapter=chapter, via="seed")
            except PublishRefused:
                continue
            self.stdout.write(f"{chapter.code}: published as release {release.number}")

    def _admin(self) -> tuple[str, str | None]:
        """The admin account, and its password when it was created now (None: it was kept)."""
        User = get_user_model()
        if (kept := User.objects.filter(username=ADMIN).first()) is not None:
            return kept.get_username(), None
        PASSWORD_FILE.parent.mkdir(exist_ok=True)
        if PASSWORD_FILE.exists():  # a database made again: the password written before
            password = PASSWORD_FILE.read_text().strip()
        else:
            password = secrets.token_urlsafe(12)
            PASSWORD_FILE.write_text(password + "\n")
            PASSWORD_FILE.chmod(0o600)
        user = User.objects.create_superuser(username=ADMIN, email="", password=password)
        user.groups.add(Group.objects.get(name="Editors"))
        return user.get_username(), password
