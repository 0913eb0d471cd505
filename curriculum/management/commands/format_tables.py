"""Rewrite the key tables of docs/content-format.md from the chapter-file schema."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from curriculum.domain.chapter_files.format_tables import with_tables


class Command(BaseCommand):
    help = "Check (or with --write, rewrite) the key tables of docs/content-format.md."

    def add_arguments(self, parser):
        parser.add_argument("--write", action="store_true", help="rewrite the tables in place")

    def handle(self, *args, write=False, **options):
        path = Path(settings.BASE_DIR) / "docs" / "content-format.md"
        text = path.read_text()
        made = with_tables(text)
        if write:
            path.write_text(made)
        elif made != text:
            raise CommandError(f"{path}: its key tables differ from the schema; run with --write")
