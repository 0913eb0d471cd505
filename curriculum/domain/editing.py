"""Writes to problems that can break the publication rule take the chapter's row lock first."""

from django.db import transaction

from curriculum.models import Problem

from .locks import chapter_lock
from .verification import chapter_touch


def problem_save(*, problem: Problem) -> Problem:
    with transaction.atomic():
        chapter_lock(chapter_id=problem.chapter_id)
        problem.full_clean()
        problem.save()
        chapter_touch(chapter_id=problem.chapter_id)
    return problem


def problem_delete(*, problem: Problem) -> None:
    with transaction.atomic():
        chapter_lock(chapter_id=problem.chapter_id)
        problem.delete()
        chapter_touch(chapter_id=problem.chapter_id)
