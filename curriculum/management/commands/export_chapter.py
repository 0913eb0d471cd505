"""export_chapter CODE: print the chapter's working copy in the chapter-file form."""

from django.core.management.base import BaseCommand, CommandError

from curriculum.domain.chapter_files import ChapterFileError, chapter_export
from curriculum.models import Chapter


class Command(BaseCommand):
    help = "Print a chapter as a YAML chapter file."

    def add_arguments(self, parser):
        parser.add_argument("code")

    def handle(self, *args, code, **options):
        try:
            self.stdout.write(chapter_export(code=code), ending="")
        except Chapter.DoesNotExist as error:
            raise CommandError(f"no chapter {code}") from error
        except ChapterFileError as refusal:
            raise CommandError("\n".join(refusal.errors)) from refusal
