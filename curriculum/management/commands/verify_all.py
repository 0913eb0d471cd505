"""verify_all: check every stored solution again, e.g. after an engine upgrade."""

import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from curriculum.domain.verification import verdicts_all_request, verdicts_await
from curriculum.models import Solution


class Command(BaseCommand):
    help = "Send every solution to the verifier, with a progress bar; --wait follows the verdicts."

    def add_arguments(self, parser):
        parser.add_argument(
            "--wait",
            type=float,
            default=None,
            metavar="SECONDS",
            help="then wait this long for the verdicts, with a second bar",
        )

    def handle(self, *args, wait, **options):
        total = Solution.objects.count()
        solution_ids = list(
            tqdm(verdicts_all_request(), total=total, desc="sent", unit="solution", file=sys.stderr)
        )
        self.stdout.write(f"{len(solution_ids)} solutions sent to the verifier")
        if wait is None:
            return
        with tqdm(total=len(solution_ids), desc="decided", unit="verdict", file=sys.stderr) as bar:
            decided = verdicts_await(
                solution_ids=solution_ids, timeout=wait, progress=lambda n: bar.update(n - bar.n)
            )
        if not decided:
            raise CommandError(f"timed out after {wait:g} s with verdicts still pending")
