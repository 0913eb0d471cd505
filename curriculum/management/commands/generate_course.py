"""generate_course: a deterministic course of any size, for benchmarks and scale tests."""

import sys
import time

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from curriculum.domain.gate import PublishRefused
from curriculum.domain.generation import CourseExists, CourseSize, course_generate


class Command(BaseCommand):
    help = (
        "Write a generated course through the importer, the verifier and the gate "
        "(defaults: 12 books x 25 chapters x 40 problems, 30 strand items, 3 releases each)."
    )

    def add_arguments(self, parser):
        defaults = CourseSize()
        parser.add_argument("--seed", type=int, default=0)
        for name in ("books", "chapters", "problems", "items", "releases"):
            parser.add_argument(f"--{name}", type=int, default=getattr(defaults, name))

    def handle(self, *args, seed, books, chapters, problems, items, releases, **options):
        for name, value, least in (
            ("books", books, 1),
            ("chapters", chapters, 1),
            ("problems", problems, 0),
            ("items", items, 0),
            ("releases", releases, 0),
        ):
            if value < least or (name == "books" and value > 399):
                raise CommandError(f"--{name}: {value} is out of range")
        size = CourseSize(books, chapters, problems, items, releases)
        started = time.monotonic()
        with tqdm(total=books * chapters, desc="chapters", unit="chapter", file=sys.stderr) as bar:
            try:
                codes = course_generate(seed=seed, size=size, progress=lambda _: bar.update())
            except (CourseExists, PublishRefused) as error:
                raise CommandError(str(error)) from error
        self.stdout.write(
            f"{len(codes)} chapters, {len(codes) * problems} problems, "
            f"{len(codes) * releases} releases in {time.monotonic() - started:.1f} s"
        )
