"""import_chapter FILE...: load chapter and book files, one transaction per file."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from curriculum.domain.chapter_files import ChapterFileError, files_import, import_order
from curriculum.domain.claims.reports import claim_line, claim_rows
from curriculum.domain.verification import chapter_verify_now
from curriculum.domain.writers import writing

from .verify_chapter import verdict_line


class Command(BaseCommand):
    help = "Create or update chapters (and books) from YAML files; a bad file writes nothing."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path)
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="validate, run the engine on every problem and print its verdicts; write nothing",
        )

    def handle(self, *args, files, dry_run, **options):
        with files_import(dry_run=dry_run) as file_import, writing(via="import"):
            failed = self._import_all(files, file_import, dry_run)
        self.stdout.flush()  # every row before the verdict on stderr, even through a pipe
        if failed:
            raise CommandError(f"{failed} of {len(files)} files refused")
        if self.unverified or self.unverified_claims:
            claims = (
                f" and {self.unverified_claims} claims or properties"
                if self.unverified_claims
                else ""
            )
            raise CommandError(f"{self.unverified} answers{claims} not verified")

    def _import_all(self, files, file_import, dry_run) -> int:
        failed = 0
        self.unverified = self.unverified_claims = 0
        for file in import_order(files):
            try:
                result = file_import(text=file.read_text(encoding="utf-8"))
            except OSError as error:
                failed += 1
                self.stderr.write(f"{file}: cannot read: {error.strerror}")
            except UnicodeDecodeError as error:
                failed += 1
                self.stderr.write(
                    f"{file}: not UTF-8 text (byte {error.object[error.start]:#04x} at offset "
                    f"{error.start}); save the file as UTF-8"
                )
            except ChapterFileError as error:
                failed += 1
                count = len(error.errors)
                self.stderr.write(
                    f"{file}: refused, nothing written ({count} error{'s' * (count != 1)}):"
                )
                for line in error.errors:
                    self.stderr.write(f"  {line}")
            else:
                verb = "would import" if dry_run else ("created" if result.created else "updated")
                sent = "would be sent" if dry_run else "sent"
                queued = f", {result.enqueued} {sent} to the verifier" if result.enqueued else ""
                self.stdout.write(f"{file}: {verb} {result.label}{queued}")
                for warning in result.warnings:
                    self.stderr.write(f"  warning: {warning}")
                if dry_run and result.kind == "chapter":
                    self._verify(result.label)
        return failed

    def _verify(self, code: str) -> None:
        """The rows verify_chapter would print, decided here by the engine."""
        for row in chapter_verify_now(code=code):
            self.stdout.write(f"  {verdict_line(row)}")
            self.unverified += not row.verified
        for claim in claim_rows(code=code, decide_now=True):
            self.stdout.write(f"  {claim_line(claim)}")
            self.unverified_claims += claim.visible and not claim.verified
