"""verify_chapter CODE [--wait [SECONDS]]: check every problem of a chapter again."""

import json

from django.core.management.base import BaseCommand, CommandError

from curriculum.domain.claims.reports import claim_line, claims_await
from curriculum.domain.claims.requests import claims_request
from curriculum.domain.counting import plural
from curriculum.domain.verification import (
    Reverify,
    VerdictRow,
    chapter_verdict_rows,
    verdicts_await,
)
from curriculum.models import Chapter

DEFAULT_WAIT = 120.0


class Command(BaseCommand):
    help = (
        "Send every problem of a chapter to the verifier; with --wait, print each verdict and "
        "fail unless all are verified."
    )

    def add_arguments(self, parser):
        parser.add_argument("code")
        parser.add_argument(
            "--wait",
            nargs="?",
            type=float,
            const=DEFAULT_WAIT,
            default=None,
            metavar="SECONDS",
            help=f"wait for the verdicts (default {DEFAULT_WAIT:g} seconds)",
        )

    def handle(self, *args, code, wait, **options):
        try:
            solution_ids = Reverify(code=code).execute()  # as the system
        except Chapter.DoesNotExist as error:
            raise CommandError(f"no chapter {code}") from error
        claims = claims_request([Chapter.objects.get(code=code).pk])
        also = f" and {plural(claims, 'claim')}" if claims else ""
        self.stdout.write(
            f"{code}: {plural(len(solution_ids), 'solution')}{also} sent to the verifier"
        )
        if wait is None:
            return
        decided = verdicts_await(solution_ids=solution_ids, timeout=wait)
        rows = chapter_verdict_rows(code=code)
        for row in rows:
            self.stdout.write(verdict_line(row))
        claim_list = claims_await(code=code, timeout=wait)
        for claim in claim_list:
            self.stdout.write(claim_line(claim))
        if not decided or any(claim.state == "pending" for claim in claim_list):
            raise CommandError(f"timed out after {wait:g} s with verdicts still pending")
        failed = [row.key for row in rows if not row.verified]
        failed += [claim.path for claim in claim_list if claim.visible and not claim.verified]
        if failed:
            raise CommandError(
                f"{len(failed)} of {len(rows) + len(claim_list)} not verified: {', '.join(failed)}"
            )


def verdict_line(row: VerdictRow) -> str:
    """One printed row; import_chapter --dry-run prints the same."""
    parts = [f"{row.key:<12}", f"{row.state:<9}"]
    if row.max_abs_error is not None:
        parts.append(f"max abs error {row.max_abs_error:.3g}")
    if row.engine_value is not None:
        # keys sorted: a mapping prints the same whatever order the database kept
        parts.append(f"engine value {json.dumps(row.engine_value, sort_keys=True)}")
    if row.message:
        parts.append(row.message)
    return "  ".join(parts).rstrip()
