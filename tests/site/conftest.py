"""The site's world: the seed content with II.3 verified and released."""

from pathlib import Path

import pytest

from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter
from tests.conftest import verify_now

SEED_PAGE = Path(__file__).resolve().parents[2] / "docs" / "seed" / "chapter-page.txt"
"""The real chapter page the design comes from, kept in the repository."""


def release_ii3() -> None:
    chapter = Chapter.objects.get(code="II.3")
    verify_now(chapter)
    chapter_publish(chapter=chapter)


@pytest.fixture
def released(seeded):
    """The seed content, with II.3 published as release 1 (II.4 stays in progress)."""
    release_ii3()
