"""verify_all: check every stored solution again, e.g. after an engine upgrade."""

import sys
import time

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from curriculum.domain.verification import verdicts_all_request, verdicts_pending
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
        if wait is not None and not self._follow(solution_ids, wait):
            raise CommandError(f"timed out after {wait:g} s with verdicts still pending")

    def _follow(self, solution_ids: list[int], wait: float) -> bool:
        deadline = time.monotonic() + wait
        with tqdm(total=len(solution_ids), desc="decided", unit="verdict", file=sys.stderr) as bar:
            while True:
                bar.update(len(solution_ids) - verdicts_pending(solution_ids=solution_ids) - bar.n)
                if bar.n == len(solution_ids):
                    return True
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.2)
