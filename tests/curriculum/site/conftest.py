"""The site's practice pages' world: the seed, and II.7 whose exercise p3 draws its scores."""

import pytest
from django.core.cache import cache

from tests.curriculum.site.test_practice import generated_chapter


@pytest.fixture
def practice(seeded, settings):
    settings.PRACTICE_CHECK_RATE = "1000/min"
    settings.API_ANON_RATE = "1000/min"
    cache.clear()
    generated_chapter()
