"""The site's world: the seed content with II.3 verified and released."""

import pytest

from curriculum.domain.gate import chapter_publish
from curriculum.models import Chapter
from tests.conftest import verify_now

SEED_PAGE = "/work/shared/seeds/000_c46797b69a9e53b1.txt"


def release_ii3() -> None:
    chapter = Chapter.objects.get(code="II.3")
    verify_now(chapter)
    chapter_publish(chapter=chapter)


@pytest.fixture
def released(seeded):
    """The seed content, with II.3 published as release 1 (II.4 stays in progress)."""
    release_ii3()
