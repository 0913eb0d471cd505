"""A small named world: the seed content, Alice the author, Erin the editor."""

from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User

from curriculum.domain.chapter_files import file_import, import_order
from curriculum.domain.verification import verdict_decide
from curriculum.models import Chapter, Solution

CONTENT = Path(__file__).resolve().parent.parent / "content"


def import_files(*paths: Path) -> None:
    for path in import_order(list(paths)):
        file_import(text=path.read_text(encoding="utf-8"))


@pytest.fixture
def seeded(db):
    """Everything under content/, imported through the importer."""
    import_files(*sorted(CONTENT.rglob("*.yaml")))


@pytest.fixture
def books(db):
    import_files(CONTENT / "books.yaml", *sorted((CONTENT / "0").glob("*.yaml")))


def verify_now(chapter: Chapter) -> None:
    """Decide every pending verdict of a chapter in-process, as the worker would."""
    for solution in Solution.objects.filter(problem__chapter=chapter):
        verdict_decide(solution_id=solution.pk)


@pytest.fixture
def alice(db):
    """An author: edits everything, publishes nothing."""
    user = User.objects.create_user("alice", password="alice-pass-9", is_staff=True)
    user.groups.add(Group.objects.get(name="Authors"))
    return user


@pytest.fixture
def erin(db):
    """An editor: may publish."""
    user = User.objects.create_user("erin", password="erin-pass-9", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    return user
