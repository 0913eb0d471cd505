"""publish_chapter CODE: run the gate; print the release number or every reason.

It runs as the system (every permission, recorded on the release as "system
(publish_chapter)") unless `--user NAME` names whose role applies and who made the release.
A chapter unchanged since its latest release makes none, and the command says so.

`--reviewed VERSION` (the ETag of GET /chapters/{code}/source, quotes optional) publishes only
that version of the working copy. Not `--version`: every Django command has that option
already (it prints Django's version).
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from curriculum.domain.gate import ChapterPublish, PublishForbidden, PublishRefused
from curriculum.models import Chapter


class Command(BaseCommand):
    help = "Publish a chapter: make a release if every rule holds, else list every reason."

    def add_arguments(self, parser):
        parser.add_argument("code")
        parser.add_argument("--user", help="publish as this user (their permissions apply)")
        parser.add_argument(
            "--reviewed",
            metavar="VERSION",
            help="publish only this version of the working copy (the ETag of its source)",
        )

    def handle(self, *args, code, user, reviewed, **options):
        chapter = Chapter.objects.filter(code=code).first()
        if chapter is None:
            raise CommandError(f"no chapter {code}")
        publisher = None
        if user:
            publisher = get_user_model().objects.filter(username=user).first()
            if publisher is None:
                raise CommandError(f"no user {user}")
        try:
            publication = ChapterPublish(
                chapter=chapter,
                user=publisher,
                reviewed=None if reviewed is None else frozenset({_etag(reviewed)}),
                via="publish_chapter",
            ).execute()
        except PublishForbidden as error:
            raise CommandError(str(error)) from error
        except PublishRefused as refusal:
            self.stderr.write(f"{code}: publish refused ({len(refusal.reasons)} reasons):")
            for reason in refusal.reasons:
                self.stderr.write(f"  - {reason}")
            raise CommandError(f"{code} not published") from refusal
        if publication.made:
            self.stdout.write(f"{code}: release {publication.release.number}")
        else:
            self.stdout.write(publication.message)


def _etag(tag: str) -> str:
    """The tag as GET source's ETag writes it, quotes and all, typed with or without them."""
    return '"' + tag.strip('"') + '"'
